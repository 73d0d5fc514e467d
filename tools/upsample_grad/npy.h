// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0), limited to what the
// tool needs: little-endian arrays of fixed-size numbers in C order.
#ifndef TOOLS_UPSAMPLE_GRAD_NPY_H_
#define TOOLS_UPSAMPLE_GRAD_NPY_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace upsample_grad::npy {

// Thrown for any file that cannot be read or written as .npy; the message is one line that names
// the file, says what was wrong and what was expected.
class NpyError : public std::runtime_error {
 public:
  explicit NpyError(const std::string& message) : std::runtime_error(message) {}
};

struct Array {
  // The type as NumPy spells it, normalised to an explicit byte order: "<f4", "<u2", "|u1".
  std::string descr;
  std::vector<int64_t> shape;
  // The elements in C order, exactly as stored in the file (little-endian).
  std::vector<std::byte> data;

  int64_t ElementCount() const;
};

// Parses a whole .npy image; `source` names it in error messages. Accepts the kinds 'f', 'i',
// 'u' and 'b'; rejects big-endian data, Fortran order, structured and object arrays, and data
// shorter than the shape needs. Like NumPy it ignores bytes after the data.
Array ParseNpy(const std::byte* bytes, size_t size, const std::string& source);

// Reads and parses the file at `path`.
Array ReadNpy(const std::string& path);

// The complete header (magic, version, length, dict, padding) for C-order data of `descr` and
// `shape`. Version 1.0 unless the dict needs more than 65535 bytes.
std::string EncodeNpyHeader(std::string_view descr, const std::vector<int64_t>& shape);

// Writes `array` to `path` atomically (see AtomicFileWriter): whole or not at all.
void WriteNpy(const std::string& path, const Array& array);

// The bytes one element of `descr` occupies ("<f4" -> 4); throws NpyError for a malformed descr.
size_t ItemSize(std::string_view descr);

// "(2, 3)", "(5,)" or "()" as Python prints a shape tuple.
std::string FormatShape(const std::vector<int64_t>& shape);

// A file that appears at its final path only when Commit() succeeds: data goes to a temporary
// file in the same directory (so that the final rename cannot cross file systems), and the
// temporary file is removed if the writer is destroyed before Commit(). Constructing it fails
// early when the destination cannot be written, before any expensive work is done.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void Write(const void* bytes, size_t size);
  void Commit();
  const std::string& path() const { return path_; }

 private:
  void Fail(const std::string& what);

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace upsample_grad::npy

#endif  // TOOLS_UPSAMPLE_GRAD_NPY_H_
