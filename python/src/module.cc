// aclnn_upsample._core: every operator of the library's table (aclnn_upsample/operators.h) on
// any CPU array, through the library's C API only: one binding serves every row, forward or
// backward, through the row's uniform phase-1 and phase-2 pointers.
//
// The arrays are never copied: each becomes an aclTensor view of its own memory with its own
// strides, and the library validates everything (dtype, rank, shapes, overlap, limits) so that
// Python sees exactly the statuses and messages a C caller gets. What this layer adds: DLPack
// dtypes to aclDataType, the views' storage extents, a cached workspace, the GIL released while
// the library runs, torch tensors described without DLPack, and (opt-in) PyTorch's OpenMP team
// for the library's threads. The Python package (aclnn_upsample/__init__.py) allocates results
// and turns a failing status into AclnnError.
#include <dlfcn.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
// Not CANN's API: the process-wide thread count and external team (no public call sets them),
// and the build's description, from the project's public extension header where this checkout
// has it.
#include "engine/plan.h"
#include "engine/thread_control.h"
#if __has_include("aclnn_upsample/version.h")
#include "aclnn_upsample/version.h"
#define ACLNN_UPSAMPLE_HAS_VERSION_H 1
#else
#include "kernels/kernels.h"
#endif

namespace nb = nanobind;

namespace {

// Row `index` of the operator table; raises for an index past its end.
const aclnn_upsample_operator& OperatorAt(size_t index) {
  const aclnn_upsample_operator* op = aclnn_upsample_operator_at(index);
  if (op == nullptr) {
    throw nb::value_error(("op: expected a row of the operator table (0 to " +
                           std::to_string(aclnn_upsample_operator_count() - 1) + "), got " +
                           std::to_string(index))
                              .c_str());
  }
  return *op;
}

// Every DLPack dtype that has an aclDataType goes to the library as that type, so that a float64
// or integer array is rejected by the library with its own message, as in C.
aclDataType ToAclDataType(nb::dlpack::dtype dtype) {
  using Code = nb::dlpack::dtype_code;
  if (dtype.lanes != 1) return ACL_DT_UNDEFINED;
  const auto code = static_cast<Code>(dtype.code);
  switch (code) {
    case Code::Float:
      return dtype.bits == 32   ? ACL_FLOAT
             : dtype.bits == 16 ? ACL_FLOAT16
             : dtype.bits == 64 ? ACL_DOUBLE
                                : ACL_DT_UNDEFINED;
    case Code::Bfloat:
      return dtype.bits == 16 ? ACL_BF16 : ACL_DT_UNDEFINED;
    case Code::Int:
      return dtype.bits == 8    ? ACL_INT8
             : dtype.bits == 16 ? ACL_INT16
             : dtype.bits == 32 ? ACL_INT32
             : dtype.bits == 64 ? ACL_INT64
                                : ACL_DT_UNDEFINED;
    case Code::UInt:
      return dtype.bits == 8    ? ACL_UINT8
             : dtype.bits == 16 ? ACL_UINT16
             : dtype.bits == 32 ? ACL_UINT32
             : dtype.bits == 64 ? ACL_UINT64
                                : ACL_DT_UNDEFINED;
    case Code::Bool:
      return ACL_BOOL;
    case Code::Complex:
      return dtype.bits == 64    ? ACL_COMPLEX64
             : dtype.bits == 128 ? ACL_COMPLEX128
                                 : ACL_DT_UNDEFINED;
    default:
      return ACL_DT_UNDEFINED;
  }
}

// A failure the library reported: its status and this thread's message.
struct Failure {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string message;
};

Failure LibraryFailure(aclnnStatus status) {
  const char* message = aclGetRecentErrMsg();
  return Failure{status, message != nullptr ? message : ""};
}

// An aclTensor viewing an array's own memory, destroyed with the holder.
class TensorView {
 public:
  TensorView() = default;
  TensorView(const TensorView&) = delete;
  TensorView& operator=(const TensorView&) = delete;
  ~TensorView() {
    if (tensor_ != nullptr) aclDestroyTensor(tensor_);
  }

  // Describes `array` for the library. The storage is the span the view covers: the library
  // checks that the view fits it, so the span must be the true one. A negative stride (NumPy's
  // a[::-1]) is described as it is, from the lowest address, for the library to reject.
  Failure Create(const nb::ndarray<nb::ro>& array, aclFormat format, const char* name) {
    std::vector<int64_t> dims(array.ndim()), strides(array.ndim());
    for (size_t d = 0; d < dims.size(); ++d) {
      dims[d] = static_cast<int64_t>(array.shape(d));
      strides[d] = array.stride(d);
    }
    return Create(const_cast<void*>(array.data()), dims, strides, ToAclDataType(array.dtype()),
                  array.itemsize(), format, name);
  }

  // `data` is the view's element 0; strides count elements.
  Failure Create(void* data, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                 aclDataType dtype, size_t itemsize, aclFormat format, const char* name) {
    const size_t ndim = dims.size();
    if (strides.size() != ndim) {
      return Failure{ACLNN_ERR_PARAM_INVALID, std::string(name) + ": expected " +
                                                  std::to_string(ndim) + " strides, got " +
                                                  std::to_string(strides.size())};
    }
    int64_t lowest = 0, highest = 0;
    bool empty = false;
    for (size_t d = 0; d < ndim; ++d) empty |= dims[d] == 0;
    bool overflow = false;
    for (size_t d = 0; d < ndim && !empty; ++d) {
      int64_t reach = 0;
      overflow |= __builtin_mul_overflow(dims[d] - 1, strides[d], &reach);
      overflow |= __builtin_add_overflow(reach < 0 ? lowest : highest, reach,
                                         reach < 0 ? &lowest : &highest);
    }
    int64_t storage = 0;
    if (!empty) overflow |= __builtin_sub_overflow(highest, lowest - 1, &storage);
    if (overflow) {
      // Only a hand-made view (numpy.lib.stride_tricks.as_strided) can get here.
      return Failure{ACLNN_ERR_PARAM_INVALID,
                     std::string(name) +
                         ": expected a view whose element span fits in int64, got strides that "
                         "overflow it"};
    }
    auto* bytes = static_cast<char*>(data);
    if (itemsize > 1 && reinterpret_cast<uintptr_t>(bytes) % itemsize != 0) {
      // The library reads elements as C objects of their type, which must be aligned.
      return Failure{ACLNN_ERR_PARAM_INVALID,
                     std::string(name) + ": expected data aligned to its " +
                         std::to_string(itemsize) + "-byte elements, got an address " +
                         std::to_string(reinterpret_cast<uintptr_t>(bytes) % itemsize) +
                         " bytes past a boundary"};
    }
    tensor_ = aclCreateTensor(dims.data(), ndim, dtype, strides.data(), -lowest, format, &storage,
                              1, bytes == nullptr ? nullptr : bytes + lowest * int64_t(itemsize));
    if (tensor_ == nullptr) return LibraryFailure(ACLNN_ERR_PARAM_INVALID);
    return Failure{};
  }

  // A stand-in for a result not yet allocated, for phase 1 to judge its shape by: its dims are
  // the result's as the caller asked for it (which may be impossible to allocate), its data a
  // dummy address that is never written since the plan is not run.
  Failure CreatePlaceholder(const std::vector<int64_t>& dims, aclDataType dtype, aclFormat format) {
    static char dummy;
    tensor_ = aclCreateTensor(dims.data(), dims.size(), dtype, /*stride=*/nullptr, 0, format,
                              dims.data(), dims.size(), &dummy);
    if (tensor_ == nullptr) return LibraryFailure(ACLNN_ERR_PARAM_INVALID);
    return Failure{};
  }

  aclTensor* get() const { return tensor_; }

 private:
  aclTensor* tensor_ = nullptr;
};

class IntArray {
 public:
  IntArray(const IntArray&) = delete;
  IntArray& operator=(const IntArray&) = delete;
  // None: a null handle, which is what a forward row's phase 1 takes for its absent inputSize.
  explicit IntArray(const std::optional<std::vector<int64_t>>& values) {
    if (!values) return;
    // An empty list still needs a pointer: the library then reports the wrong length, not null.
    static const int64_t kNone = 0;
    array_ = aclCreateIntArray(values->empty() ? &kNone : values->data(), values->size());
  }
  ~IntArray() {
    if (array_ != nullptr) aclDestroyIntArray(array_);
  }
  const aclIntArray* get() const { return array_; }

 private:
  aclIntArray* array_ = nullptr;
};

// One workspace per calling thread, grown when a call needs more and kept for the next: the
// library's workspace is scratch only, and allocating (and faulting in) it per call would cost
// small calls more than they compute.
class Workspace {
 public:
  ~Workspace() {
    if (data_ != nullptr) aclrtFree(data_);
  }
  // Returns the status of the allocation.
  aclError Reserve(uint64_t bytes) {
    if (bytes <= size_) return ACL_SUCCESS;
    if (data_ != nullptr) aclrtFree(data_);
    data_ = nullptr;
    size_ = 0;
    const aclError status = aclrtMalloc(&data_, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status == ACL_SUCCESS) size_ = bytes;
    return status;
  }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  uint64_t size_ = 0;
};

// What a row's phase 1 takes besides its two tensors, as Python gives it.
struct Arguments {
  std::vector<int64_t> output_size;
  std::optional<std::vector<int64_t>> input_size;  // None for a forward row
  bool align_corners = false;
  double scales_h = 0.0;
  double scales_w = 0.0;
  aclFormat format = ACL_FORMAT_NCHW;
};

// Runs both phases of `op` (phase 1 only with `plan_only`), with the GIL released.
Failure RunLibrary(const aclnn_upsample_operator& op, const aclTensor* source, aclTensor* out,
                   const Arguments& args, bool plan_only) {
  thread_local Workspace workspace;
  const IntArray output_size(args.output_size), input_size(args.input_size);
  nb::gil_scoped_release release;
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      op.get_workspace_size(source, output_size.get(), input_size.get(), args.align_corners,
                            args.scales_h, args.scales_w, out, &workspace_size, &executor);
  if (status != ACLNN_SUCCESS) return LibraryFailure(status);
  if (plan_only) {
    aclDestroyAclOpExecutor(executor);
    return Failure{};
  }
  if (workspace.Reserve(workspace_size) != ACL_SUCCESS) {
    Failure failure = LibraryFailure(ACLNN_ERR_INNER);
    // A single-use executor is freed by phase 2 only; hand it back unrun.
    aclDestroyAclOpExecutor(executor);
    return failure;
  }
  status = op.run(workspace_size > 0 ? workspace.data() : nullptr, workspace_size, executor,
                  /*stream=*/nullptr);
  if (status != ACLNN_SUCCESS) return LibraryFailure(status);
  return Failure{};
}

void RequireCpu(int device_type, const char* name) {
  if (device_type == nb::device::cpu::value) return;
  throw nb::value_error((std::string(name) +
                         ": expected an array in CPU memory (DLPack device type 1), got device "
                         "type " +
                         std::to_string(device_type))
                            .c_str());
}

std::pair<int, std::string> Reply(const Failure& failure) {
  return {failure.status, failure.message};
}

// Runs row `op_index` of the operator table from `source` into `out`. Returns (0, "") or the
// library's (status, message); raises only for what is not the library's to judge (a non-CPU
// array, a row that does not exist). Without `out`, runs phase 1 only, against a stand-in result
// of shape `result_shape`: how the caller learns the library's verdict on a result it could not
// allocate.
std::pair<int, std::string> Run(size_t op_index, nb::ndarray<nb::ro> source,
                                std::optional<nb::ndarray<>> out,
                                const std::vector<int64_t>& result_shape, const Arguments& args) {
  const aclnn_upsample_operator& op = OperatorAt(op_index);
  RequireCpu(source.device_type(), op.source_name);
  if (out) RequireCpu(out->device_type(), "out");
  TensorView source_view, out_view;
  Failure failure = source_view.Create(source, args.format, op.source_name);
  if (failure.status == ACLNN_SUCCESS) {
    failure =
        out ? out_view.Create(nb::ndarray<nb::ro>(*out), args.format, "out")
            : out_view.CreatePlaceholder(result_shape, ToAclDataType(source.dtype()), args.format);
  }
  if (failure.status != ACLNN_SUCCESS) return Reply(failure);
  return Reply(RunLibrary(op, source_view.get(), out_view.get(), args, !out.has_value()));
}

// A strided CPU tensor described by its owner (PyTorch), which keeps it alive for the call:
// (address of element 0, dims, strides in elements, aclDataType, element size in bytes).
using RawTensor = std::tuple<uintptr_t, std::vector<int64_t>, std::vector<int64_t>, int, size_t>;

// Run() for tensors described directly: PyTorch's DLPack export costs more than a small call's
// whole work (about 10 us per tensor), so aclnn_upsample passes torch tensors this way.
std::pair<int, std::string> RunRaw(size_t op_index, const RawTensor& source, const RawTensor& out,
                                   const Arguments& args) {
  const aclnn_upsample_operator& op = OperatorAt(op_index);
  TensorView source_view, out_view;
  const auto create = [&args](TensorView& view, const RawTensor& raw, const char* name) {
    const auto& [address, dims, strides, dtype, itemsize] = raw;
    return view.Create(reinterpret_cast<void*>(address), dims, strides,
                       static_cast<aclDataType>(dtype), itemsize, args.format, name);
  };
  Failure failure = create(source_view, source, op.source_name);
  if (failure.status == ACLNN_SUCCESS) failure = create(out_view, out, "out");
  if (failure.status != ACLNN_SUCCESS) return Reply(failure);
  return Reply(RunLibrary(op, source_view.get(), out_view.get(), args, false));
}

// The table's rows as dicts, for the package to find its functions' operators by name.
nb::list OperatorRows() {
  nb::list rows;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator& op = *aclnn_upsample_operator_at(i);
    nb::dict row;
    row["index"] = i;
    row["name"] = op.name;
    row["mode"] = op.mode;
    row["forward"] = op.direction == ACLNN_UPSAMPLE_FORWARD;
    row["command"] = op.command;
    row["source_name"] = op.source_name;
    row["accepts_nhwc"] = op.accepts_nhwc;
    row["accepts_nd"] = op.accepts_nd;
    row["accepts_empty"] = op.accepts_empty;
    row["rejects_negative_scales"] = op.rejects_negative_scales;
    row["scales_need_consistent_size"] = op.scales_need_consistent_size;
    row["max_upscale"] = op.max_upscale;
    row["takes_align_corners"] = op.takes_align_corners;
    row["takes_scales"] = op.takes_scales;
    row["scales_are_float"] = op.scales_are_float;
    rows.append(row);
  }
  return rows;
}

// The OpenMP runtime another library (PyTorch) loaded, whose threads the library's tasks can run
// on: inside PyTorch its OpenMP workers spin after each op on the cores a second pool would need,
// while as members of the same team they take the library's tasks at once.
struct OpenMpRuntime {
  void (*parallel)(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) = nullptr;
  int (*thread_num)() = nullptr;
  int (*max_threads)() = nullptr;
  int (*in_parallel)() = nullptr;
};

OpenMpRuntime openmp;  // written only while no team is set (see UseOpenMpTeam)

struct TeamCall {
  void (*body)(void*, int);
  void* arg;
};

void RunOpenMpTeam(void* /*context*/, int threads, void (*body)(void*, int), void* arg) {
  // Nested inside someone's parallel region a team would have one thread anyway.
  if (threads <= 1 || openmp.in_parallel()) {
    body(arg, 0);
    return;
  }
  TeamCall call{body, arg};
  // GOMP_parallel: every member, the caller included, runs fn; it returns after the region's
  // closing barrier, which makes the members' writes visible.
  openmp.parallel(
      [](void* data) {
        const auto* team_call = static_cast<const TeamCall*>(data);
        team_call->body(team_call->arg, openmp.thread_num());
      },
      &call, static_cast<unsigned>(threads), 0);
}

int OpenMpMaxThreads(void* /*context*/) { return openmp.max_threads(); }

// Runs the library's tasks on the team of the OpenMP runtime at `path`, which must already be
// loaded (PyTorch's libgomp); none: on the library's own pool again.
void UseOpenMpTeam(std::optional<std::string> path) {
  aclnn_upsample::SetExternalTeam(nullptr);
  if (!path) return;
  void* handle = dlopen(path->c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) {
    throw nb::value_error(("use_openmp_team: expected an OpenMP runtime already loaded in this "
                           "process, got " +
                           *path + " (" + dlerror() + ")")
                              .c_str());
  }
  OpenMpRuntime found;
  found.parallel = reinterpret_cast<decltype(found.parallel)>(dlsym(handle, "GOMP_parallel"));
  found.thread_num =
      reinterpret_cast<decltype(found.thread_num)>(dlsym(handle, "omp_get_thread_num"));
  found.max_threads =
      reinterpret_cast<decltype(found.max_threads)>(dlsym(handle, "omp_get_max_threads"));
  found.in_parallel =
      reinterpret_cast<decltype(found.in_parallel)>(dlsym(handle, "omp_in_parallel"));
  // The handle stays open: the runtime's owner keeps it loaded, and so do we while it is used.
  if (found.parallel == nullptr || found.thread_num == nullptr || found.max_threads == nullptr ||
      found.in_parallel == nullptr) {
    throw nb::value_error(("use_openmp_team: expected GOMP_parallel, omp_get_thread_num, "
                           "omp_get_max_threads and omp_in_parallel in " +
                           *path + ", got a library without them")
                              .c_str());
  }
  openmp = found;
  const aclnn_upsample::ExternalTeam team{RunOpenMpTeam, OpenMpMaxThreads, nullptr};
  aclnn_upsample::SetExternalTeam(&team);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "aclnn_upsample's C API bound for Python; use the aclnn_upsample package, not this.";
  // CANN's contract: aclInit before any operator (a no-op on the CPU, kept for that order).
  aclInit(nullptr);

  nb::class_<Arguments>(m, "Arguments",
                        "What a row's phase 1 takes besides its tensors; input_size is None for "
                        "a forward row.")
      .def(
          "__init__",
          [](Arguments* args, std::vector<int64_t> output_size,
             std::optional<std::vector<int64_t>> input_size, bool align_corners, double scales_h,
             double scales_w, int format) {
            new (args) Arguments{std::move(output_size),
                                 std::move(input_size),
                                 align_corners,
                                 scales_h,
                                 scales_w,
                                 static_cast<aclFormat>(format)};
          },
          nb::arg("output_size"), nb::arg("input_size").none(), nb::arg("align_corners"),
          nb::arg("scales_h"), nb::arg("scales_w"), nb::arg("format"));
  m.def("operators", &OperatorRows, "The operator table's rows, in its order.");
  m.def("run", &Run, nb::arg("op"), nb::arg("source"), nb::arg("out").noconvert().none(),
        nb::arg("result_shape"), nb::arg("args"),
        "Runs row `op` of the operator table from source into out; returns (status, message), "
        "(0, '') on success. Without out, phase 1 only against a result of result_shape.");
  m.def("run_raw", &RunRaw, nb::arg("op"), nb::arg("source"), nb::arg("out"), nb::arg("args"),
        "run() for tensors given as (address, dims, strides, aclDataType, itemsize).");
  m.def(
      "set_num_threads",
      [](int threads) {
        if (threads < 0) {
          throw nb::value_error(
              ("set_num_threads: expected a thread count >= 1, or 0 for the default, got " +
               std::to_string(threads))
                  .c_str());
        }
        aclnn_upsample::SetThreadCountOverride(threads);
      },
      nb::arg("threads"));
  m.def("use_openmp_team", &UseOpenMpTeam, nb::arg("path").none(),
        "Runs the library's tasks on the team of the already loaded OpenMP runtime at `path`; "
        "None: on its own pool.");
  m.def("uses_openmp_team", [] {
    aclnn_upsample::ExternalTeam team;
    return aclnn_upsample::GetExternalTeam(&team);
  });
  m.def("get_num_threads", [] {
    // The count a problem too big to be limited by its traffic would run with.
    return aclnn_upsample::ThreadCountFor(std::numeric_limits<uint64_t>::max());
  });
#ifdef ACLNN_UPSAMPLE_HAS_VERSION_H
  m.def("simd_target", [] { return std::string(aclnn_upsample_simd_target()); });
  m.attr("__version__") = aclnn_upsample_version();
#else
  m.def("simd_target", [] { return std::string(aclnn_upsample::kernels::ActiveTargetName()); });
  m.attr("__version__") = ACLNN_UPSAMPLE_VERSION_STRING;
#endif
  m.attr("FORMAT_NCHW") = static_cast<int>(ACL_FORMAT_NCHW);
  m.attr("FORMAT_NHWC") = static_cast<int>(ACL_FORMAT_NHWC);
  m.attr("FORMAT_ND") = static_cast<int>(ACL_FORMAT_ND);
}
