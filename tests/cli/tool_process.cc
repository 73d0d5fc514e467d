#include "tool_process.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"

extern char** environ;

namespace upsample_grad::testing {

ToolResult RunTool(const std::vector<std::string>& args,
                   const std::vector<std::string>& extra_env) {
  TempDir capture;
  std::string out_path = capture.File("stdout");
  std::string err_path = capture.File("stderr");
  // Everything the child needs is prepared before fork(): the test process may have threads,
  // and between fork() and exec only async-signal-safe calls are allowed.
  std::vector<std::string> argv_storage = {UPSAMPLE_GRAD_EXE};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage(extra_env);
  for (char** entry = environ; *entry != nullptr; ++entry) env_storage.emplace_back(*entry);
  std::vector<char*> envp;
  for (std::string& entry : env_storage) envp.push_back(entry.data());
  envp.push_back(nullptr);
  int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0 || err_fd < 0) throw std::runtime_error("cannot create capture files");

  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_fd);
  ::close(err_fd);
  int wait_status = 0;
  ::waitpid(pid, &wait_status, 0);
  ToolResult result;
  result.exit_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  result.out = ReadBytes(out_path);
  result.err = ReadBytes(err_path);
  return result;
}

TempDir::TempDir() {
  std::string name_template =
      (std::filesystem::temp_directory_path() / "upsample-grad-test-XXXXXX").string();
  std::vector<char> buffer(name_template.begin(), name_template.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = buffer.data();
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::List() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw std::runtime_error("cannot write " + path);
}

std::string ReadBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

namespace {

void Check(int status, const char* what) {
  if (status != 0) {
    throw std::runtime_error(std::string(what) + " failed: " + aclGetRecentErrMsg());
  }
}

int64_t Product(const std::array<int64_t, 4>& dims) {
  int64_t product = 1;
  for (int64_t dim : dims) product *= dim;
  return product;
}

}  // namespace

LibraryResult CallLibrary(const LibraryCall& call, const std::vector<std::byte>& source) {
  const aclnn_upsample_operator* op = aclnn_upsample_find_operator(call.op.name);
  if (op == nullptr) throw std::runtime_error(std::string("no operator ") + call.op.name);
  size_t element_size = call.dtype == ACL_FLOAT ? 4 : 2;
  int init_status = aclInit(nullptr);
  if (init_status != ACL_ERROR_REPEAT_INITIALIZE) Check(init_status, "aclInit");
  Check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream stream = nullptr;
  Check(aclrtCreateStream(&stream), "aclrtCreateStream");

  size_t result_bytes =
      static_cast<size_t>(std::max<int64_t>(Product(call.result_dims), 0)) * element_size;
  void* source_device = nullptr;
  void* result_device = nullptr;
  Check(aclrtMalloc(&source_device, std::max<size_t>(source.size(), 1), ACL_MEM_MALLOC_HUGE_FIRST),
        "aclrtMalloc");
  Check(aclrtMalloc(&result_device, std::max<size_t>(result_bytes, 1), ACL_MEM_MALLOC_HUGE_FIRST),
        "aclrtMalloc");
  if (!source.empty()) {
    Check(aclrtMemcpy(source_device, source.size(), source.data(), source.size(),
                      ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy");
  }
  aclTensor* source_tensor =
      aclCreateTensor(call.source_dims.data(), 4, call.dtype, nullptr, 0, call.format,
                      call.source_dims.data(), 4, source_device);
  aclTensor* result_tensor =
      aclCreateTensor(call.result_dims.data(), 4, call.dtype, nullptr, 0, call.format,
                      call.result_dims.data(), 4, result_device);
  aclIntArray* output_size = aclCreateIntArray(call.output_size.data(), 2);
  // CANN's forward operators take no inputSize.
  aclIntArray* input_size =
      call.op.forward ? nullptr : aclCreateIntArray(call.result_dims.data(), 4);

  LibraryResult result;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  result.status = op->get_workspace_size(source_tensor, output_size, input_size, call.align_corners,
                                         call.scales_h, call.scales_w, result_tensor,
                                         &workspace_size, &executor);
  void* workspace = nullptr;
  if (result.status == 0) {
    if (workspace_size > 0) {
      Check(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    }
    result.status = op->run(workspace, workspace_size, executor, stream);
  }
  if (result.status == 0) {
    Check(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    result.result.resize(result_bytes);
    Check(aclrtMemcpy(result.result.data(), result_bytes, result_device, result_bytes,
                      ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy");
  } else {
    result.message = aclGetRecentErrMsg();
  }

  aclDestroyTensor(source_tensor);
  aclDestroyTensor(result_tensor);
  aclDestroyIntArray(output_size);
  if (input_size != nullptr) aclDestroyIntArray(input_size);
  if (workspace != nullptr) aclrtFree(workspace);
  aclrtFree(source_device);
  aclrtFree(result_device);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return result;
}

}  // namespace upsample_grad::testing
