#include "npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

namespace upsample_grad::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

std::string ErrnoText(int error) { return std::strerror(error); }

// Reads the few Python literals that NumPy writes into a header dict: strings, True/False,
// integers and tuples of integers. A list (a structured dtype) is recognised only to be refused.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  struct Value {
    enum class Kind { kString, kBool, kIntTuple, kList } kind;
    std::string text;
    bool flag = false;
    std::vector<int64_t> ints;
  };

  // Calls `on_entry(key, value)` for each entry of the top-level dict.
  template <typename OnEntry>
  void ParseDict(OnEntry on_entry) {
    Expect('{');
    SkipSpace();
    while (Peek() != '}') {
      std::string key = ParseString();
      Expect(':');
      Value value = ParseValue();
      on_entry(key, value);
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        SkipSpace();
      } else if (Peek() != '}') {
        Fail("',' or '}'");
      }
    }
    ++pos_;
    SkipSpace();
    if (pos_ != text_.size()) Fail("the end of the header after the dict");
  }

  [[noreturn]] void Fail(const std::string& expected) const {
    std::string found = pos_ < text_.size() ? std::string(1, text_[pos_]) : "the end";
    throw NpyError(Quoted(source_) + ": malformed .npy header: expected " + expected +
                   " at offset " + std::to_string(pos_) + ", found '" + found + "'");
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  void Expect(char expected) {
    SkipSpace();
    if (Peek() != expected) Fail(std::string("'") + expected + "'");
    ++pos_;
  }

  std::string ParseString() {
    SkipSpace();
    char quote = Peek();
    if (quote != '\'' && quote != '"') Fail("a quoted string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) Fail("a closing quote");
    std::string result(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return result;
  }

  int64_t ParseInt() {
    SkipSpace();
    if (!std::isdigit(static_cast<unsigned char>(Peek()))) Fail("a non-negative integer");
    int64_t value = 0;
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      int digit = Peek() - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) Fail("a smaller integer");
      value = value * 10 + digit;
      ++pos_;
    }
    if (Peek() == 'L') ++pos_;  // Python 2 wrote long integers with a suffix.
    return value;
  }

  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value ParseValue() {
    SkipSpace();
    Value value{};
    char next = Peek();
    if (next == '\'' || next == '"') {
      value.kind = Value::Kind::kString;
      value.text = ParseString();
    } else if (ConsumeWord("True")) {
      value.kind = Value::Kind::kBool;
      value.flag = true;
    } else if (ConsumeWord("False")) {
      value.kind = Value::Kind::kBool;
      value.flag = false;
    } else if (next == '(') {
      value.kind = Value::Kind::kIntTuple;
      ++pos_;
      SkipSpace();
      while (Peek() != ')') {
        value.ints.push_back(ParseInt());
        SkipSpace();
        if (Peek() == ',') {
          ++pos_;
          SkipSpace();
        } else if (Peek() != ')') {
          Fail("',' or ')'");
        }
      }
      ++pos_;
    } else if (next == '[') {
      value.kind = Value::Kind::kList;
      int depth = 0;
      do {
        if (Peek() == '[') ++depth;
        if (Peek() == ']') --depth;
        if (pos_ >= text_.size()) Fail("']'");
        ++pos_;
      } while (depth > 0);
    } else {
      Fail("a string, True, False or a tuple");
    }
    return value;
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

// Normalises NumPy's byte-order character to '<' (or '|' for single bytes) and checks that the
// type is one of the fixed-size numeric kinds.
std::string NormaliseDescr(const std::string& descr, const std::string& source) {
  const std::string expected =
      "; expected a little-endian number type such as '<f4', '<f2', '<f8' or '<u2'";
  if (descr.size() < 2)
    throw NpyError(Quoted(source) + ": unsupported dtype " + Quoted(descr) + expected);
  char order = descr[0];
  std::string type = descr;
  if (order == '<' || order == '>' || order == '|' || order == '=') {
    type = descr.substr(1);
  } else {
    order = '=';
  }
  char kind = type.empty() ? '\0' : type[0];
  std::string digits = type.substr(type.empty() ? 0 : 1);
  bool digits_ok = !digits.empty() && digits.size() <= 2 &&
                   digits.find_first_not_of("0123456789") == std::string::npos;
  size_t size = digits_ok ? std::stoul(digits) : 0;
  bool supported = false;
  if (kind == 'f') supported = size == 2 || size == 4 || size == 8;
  if (kind == 'i' || kind == 'u') supported = size == 1 || size == 2 || size == 4 || size == 8;
  if (kind == 'b') supported = size == 1;
  if (!supported) {
    throw NpyError(Quoted(source) + ": unsupported dtype " + Quoted(descr) + expected);
  }
  if (size == 1) return "|" + type;
  if (order == '>') {
    throw NpyError(Quoted(source) + ": big-endian data (" + Quoted(descr) +
                   ") is not supported; expected little-endian ('<" + type + "')");
  }
  if (order == '|') {
    throw NpyError(Quoted(source) + ": dtype " + Quoted(descr) +
                   " has no byte order; expected little-endian ('<" + type + "')");
  }
  // '=' is the writer's native order; every platform this tool runs on is little-endian.
  return "<" + type;
}

}  // namespace

int64_t Array::ElementCount() const {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

size_t ItemSize(std::string_view descr) {
  std::string_view digits = descr.substr(descr.empty() ? 0 : 1);
  if (!digits.empty() && !std::isdigit(static_cast<unsigned char>(digits[0]))) {
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    throw NpyError("malformed dtype '" + std::string(descr) + "'");
  }
  return std::stoul(std::string(digits));
}

Array ParseNpy(const std::byte* bytes, size_t size, const std::string& source) {
  const auto* chars = reinterpret_cast<const char*>(bytes);
  const std::string expected_magic = "; expected a NumPy .npy file (starting with \\x93NUMPY)";
  if (size == 0) throw NpyError(Quoted(source) + " is empty" + expected_magic);
  size_t compared = std::min(size, kMagicSize);
  if (std::memcmp(chars, kMagic, compared) != 0) {
    throw NpyError(Quoted(source) + " is not a NumPy .npy file: wrong magic" + expected_magic);
  }
  if (size < kMagicSize + 2) {
    throw NpyError(Quoted(source) + " is truncated inside the .npy preamble");
  }
  int major = static_cast<unsigned char>(chars[6]);
  int minor = static_cast<unsigned char>(chars[7]);
  if (major < 1 || major > 3) {
    throw NpyError(Quoted(source) + ": unsupported .npy format version " + std::to_string(major) +
                   "." + std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  }
  size_t length_bytes = major == 1 ? 2 : 4;
  size_t preamble = kMagicSize + 2 + length_bytes;
  if (size < preamble) {
    throw NpyError(Quoted(source) + " is truncated inside the .npy preamble");
  }
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    header_length |= static_cast<size_t>(static_cast<unsigned char>(chars[8 + i])) << (8 * i);
  }
  if (size - preamble < header_length) {
    throw NpyError(Quoted(source) + " is truncated: the .npy header needs " +
                   std::to_string(header_length) + " bytes, the file has " +
                   std::to_string(size - preamble) + " after the preamble");
  }

  HeaderParser parser(std::string_view(chars + preamble, header_length), source);
  bool have_descr = false, have_order = false, have_shape = false;
  bool fortran_order = false;
  std::string raw_descr;
  Array array;
  parser.ParseDict([&](const std::string& key, const HeaderParser::Value& value) {
    using Kind = HeaderParser::Value::Kind;
    if (key == "descr") {
      if (value.kind == Kind::kList) {
        throw NpyError(Quoted(source) +
                       ": structured dtypes are not supported; expected a plain number type "
                       "such as '<f4'");
      }
      if (value.kind != Kind::kString) parser.Fail("a string for 'descr'");
      raw_descr = value.text;
      have_descr = true;
    } else if (key == "fortran_order") {
      if (value.kind != Kind::kBool) parser.Fail("True or False for 'fortran_order'");
      fortran_order = value.flag;
      have_order = true;
    } else if (key == "shape") {
      if (value.kind != Kind::kIntTuple) parser.Fail("a tuple of integers for 'shape'");
      array.shape = value.ints;
      have_shape = true;
    } else {
      throw NpyError(Quoted(source) + ": unexpected key " + Quoted(key) +
                     " in the .npy header; expected only 'descr', 'fortran_order' and 'shape'");
    }
  });
  if (!have_descr || !have_order || !have_shape) {
    throw NpyError(Quoted(source) +
                   ": the .npy header lacks one of 'descr', 'fortran_order' and 'shape'");
  }
  array.descr = NormaliseDescr(raw_descr, source);
  bool multi_dimensional = array.shape.size() > 1;
  if (fortran_order && multi_dimensional) {
    throw NpyError(Quoted(source) +
                   ": Fortran-order (column-major) data is not supported; expected C order "
                   "(save with numpy.ascontiguousarray)");
  }

  size_t needed = ItemSize(array.descr);
  for (int64_t dim : array.shape) {
    if (__builtin_mul_overflow(needed, static_cast<size_t>(dim), &needed)) {
      throw NpyError(Quoted(source) + ": shape " + FormatShape(array.shape) +
                     " is too large to address");
    }
  }
  size_t available = size - preamble - header_length;
  if (available < needed) {
    throw NpyError(Quoted(source) + " is truncated: shape " + FormatShape(array.shape) + " of " +
                   Quoted(array.descr) + " needs " + std::to_string(needed) +
                   " data bytes, the file has " + std::to_string(available));
  }
  const std::byte* data = bytes + preamble + header_length;
  array.data.assign(data, data + needed);
  return array;
}

Array ReadNpy(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw NpyError("cannot read " + Quoted(path) + ": " + ErrnoText(errno) +
                   "; expected a readable .npy file");
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    int error = S_ISDIR(info.st_mode) ? EISDIR : errno;
    ::close(fd);
    throw NpyError("cannot read " + Quoted(path) + ": " + ErrnoText(error) +
                   "; expected a readable .npy file");
  }
  std::vector<std::byte> bytes;
  if (S_ISREG(info.st_mode)) bytes.reserve(static_cast<size_t>(info.st_size));
  std::byte chunk[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int error = errno;
      ::close(fd);
      throw NpyError("cannot read " + Quoted(path) + ": " + ErrnoText(error));
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  ::close(fd);
  return ParseNpy(bytes.data(), bytes.size(), path);
}

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::string EncodeNpyHeader(std::string_view descr, const std::vector<int64_t>& shape) {
  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': " + FormatShape(shape) + ", }";
  // NumPy pads the header with spaces so that the data starts 64-byte aligned, and ends it with
  // a newline.
  constexpr size_t kAlignment = 64;
  bool version1 = dict.size() + 1 + 10 + kAlignment <= 65535;
  size_t preamble = version1 ? 10 : 12;
  size_t unpadded = preamble + dict.size() + 1;
  size_t padding = (kAlignment - unpadded % kAlignment) % kAlignment;
  size_t header_length = dict.size() + padding + 1;

  std::string header(kMagic, kMagicSize);
  header += static_cast<char>(version1 ? 1 : 2);
  header += '\0';
  for (size_t i = 0; i < (version1 ? 2u : 4u); ++i) {
    header += static_cast<char>((header_length >> (8 * i)) & 0xff);
  }
  header += dict;
  header.append(padding, ' ');
  header += '\n';
  return header;
}

void WriteNpy(const std::string& path, const Array& array) {
  size_t expected = ItemSize(array.descr) * static_cast<size_t>(array.ElementCount());
  if (array.data.size() != expected) {
    throw NpyError("cannot write " + Quoted(path) + ": the array holds " +
                   std::to_string(array.data.size()) + " bytes, its shape needs " +
                   std::to_string(expected));
  }
  AtomicFileWriter writer(path);
  std::string header = EncodeNpyHeader(array.descr, array.shape);
  writer.Write(header.data(), header.size());
  writer.Write(array.data.data(), array.data.size());
  writer.Commit();
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw NpyError("the output path is empty; expected a file name");
  struct stat info {};
  if (::stat(path_.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw NpyError("cannot write " + Quoted(path_) + ": it is a directory; expected a file path");
  }
  std::string name_template = path_ + ".tmp-XXXXXX";
  std::vector<char> buffer(name_template.begin(), name_template.end());
  buffer.push_back('\0');
  fd_ = ::mkstemp(buffer.data());
  if (fd_ < 0) {
    throw NpyError("cannot write " + Quoted(path_) + ": " + ErrnoText(errno) +
                   "; expected a path in an existing, writable directory");
  }
  temp_path_ = buffer.data();
  // mkstemp creates the file private to its owner; give it the permissions a plain open would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void AtomicFileWriter::Fail(const std::string& what) {
  int error = errno;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_path_.c_str());
  temp_path_.clear();
  throw NpyError("cannot write " + Quoted(path_) + ": " + what + ": " + ErrnoText(error));
}

void AtomicFileWriter::Write(const void* bytes, size_t size) {
  if (fd_ < 0) throw NpyError("cannot write " + Quoted(path_) + ": the file is closed");
  const char* next = static_cast<const char*>(bytes);
  while (size > 0) {
    ssize_t written = ::write(fd_, next, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) Fail("write failed");
    next += written;
    size -= static_cast<size_t>(written);
  }
}

void AtomicFileWriter::Commit() {
  if (fd_ < 0) throw NpyError("cannot write " + Quoted(path_) + ": the file is closed");
  // Flush before the rename so that a crash cannot leave a complete name over incomplete data.
  if (::fsync(fd_) != 0) Fail("fsync failed");
  if (::close(fd_) != 0) {
    fd_ = -1;
    Fail("close failed");
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) Fail("rename failed");
  committed_ = true;
}

}  // namespace upsample_grad::npy
