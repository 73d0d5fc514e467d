#include "npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace upsample_grad::npy {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<std::byte> Bytes(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  if (!text.empty()) std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

// An .npy image with a hand-written header dict, for the header variants NumPy itself may not
// produce but other writers do.
std::string MakeNpy(int major, const std::string& dict, const std::string& data) {
  std::string image = "\x93NUMPY";
  image += static_cast<char>(major);
  image += '\0';
  size_t length = dict.size() + 1;
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    image += static_cast<char>((length >> (8 * i)) & 0xff);
  return image + dict + "\n" + data;
}

Array Parse(const std::string& image) {
  std::vector<std::byte> bytes = Bytes(image);
  return ParseNpy(bytes.data(), bytes.size(), "test.npy");
}

std::string ParseError(const std::string& image) {
  try {
    Parse(image);
  } catch (const NpyError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string FloatBytes(std::vector<float> values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

class TempDirectory {
 public:
  TempDirectory() {
    std::string name = (fs::temp_directory_path() / "npy-test-XXXXXX").string();
    path_ = ::mkdtemp(name.data());
  }
  ~TempDirectory() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  size_t EntryCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(path_), {}));
  }

 private:
  std::string path_;
};

// Written by numpy.save(numpy.arange(6, dtype='<f4').reshape(2, 3)).
const char kNumpyArange6[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n"
    "\x00\x00\x00\x00\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80@\x00\x00\xa0@";

TEST(NpyTest, ReadsWhatNumpyWrites) {
  Array array = Parse(std::string(kNumpyArange6, sizeof(kNumpyArange6) - 1));
  EXPECT_EQ(array.descr, "<f4");
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(array.data.size(), 24u);
  float values[6];
  std::memcpy(values, array.data.data(), sizeof(values));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(values[i], static_cast<float>(i));
}

TEST(NpyTest, HeaderMatchesNumpyByteForByte) {
  std::string numpy(kNumpyArange6, sizeof(kNumpyArange6) - 1);
  std::string header = EncodeNpyHeader("<f4", {2, 3});
  EXPECT_EQ(header, numpy.substr(0, 128));
  EXPECT_EQ(EncodeNpyHeader("<f2", {2}).substr(10, 60),
            "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }   ");
}

TEST(NpyTest, HeaderIsAlignedAndVersion1ForOrdinaryShapes) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{}, {7}, {1, 2, 3, 4}, {123456789, 2, 3, 4000}}) {
    std::string header = EncodeNpyHeader("<f4", shape);
    EXPECT_EQ(header.size() % 64, 0u);
    EXPECT_EQ(header[6], 1);
    EXPECT_EQ(header.back(), '\n');
  }
}

TEST(NpyTest, VeryLongHeaderUsesVersion2) {
  std::vector<int64_t> shape(30000, 1);
  std::string header = EncodeNpyHeader("<f4", shape);
  EXPECT_EQ(header[6], 2);
  EXPECT_EQ(header.size() % 64, 0u);
  Array array = Parse(header + FloatBytes({42.0f}));
  EXPECT_EQ(array.shape, shape);
  EXPECT_EQ(array.ElementCount(), 1);
}

TEST(NpyTest, RoundTripsEveryDtypeThroughAFile) {
  TempDirectory dir;
  for (const char* descr : {"<f4", "<f2", "<f8", "<u2", "<i2", "<i8", "|u1", "|b1"}) {
    SCOPED_TRACE(descr);
    Array array;
    array.descr = descr;
    array.shape = {2, 1, 3, 2};
    array.data.resize(static_cast<size_t>(array.ElementCount()) * ItemSize(descr));
    for (size_t i = 0; i < array.data.size(); ++i) array.data[i] = std::byte(i * 37 + 1);
    std::string path = dir.File("round_trip.npy");
    WriteNpy(path, array);
    Array read = ReadNpy(path);
    EXPECT_EQ(read.descr, array.descr);
    EXPECT_EQ(read.shape, array.shape);
    EXPECT_EQ(read.data, array.data);
  }
  EXPECT_EQ(dir.EntryCount(), 1u);  // no temporary files left behind
}

TEST(NpyTest, RoundTripsEmptyAndScalarShapes) {
  TempDirectory dir;
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {0}, {3, 0, 2}}) {
    Array array{"<f4", shape, std::vector<std::byte>(4 * (shape.empty() ? 1 : 0))};
    WriteNpy(dir.File("a.npy"), array);
    Array read = ReadNpy(dir.File("a.npy"));
    EXPECT_EQ(read.shape, shape);
    EXPECT_EQ(read.data.size(), array.data.size());
  }
}

TEST(NpyTest, AcceptsHeaderVariants) {
  std::string data = FloatBytes({1, 2, 3});
  for (const std::string& dict :
       {std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"),
        std::string("{\"shape\": (3,), \"descr\": \"<f4\", \"fortran_order\": False}"),
        std::string("{ 'fortran_order' : False , 'shape' : ( 3L , ) , 'descr' : '<f4' }   "),
        std::string("{'descr': 'f4', 'fortran_order': False, 'shape': (3,)}"),
        std::string("{'descr': '=f4', 'fortran_order': False, 'shape': (3,)}")}) {
    SCOPED_TRACE(dict);
    Array array = Parse(MakeNpy(1, dict, data));
    EXPECT_EQ(array.descr, "<f4");
    EXPECT_EQ(array.shape, std::vector<int64_t>{3});
  }
}

TEST(NpyTest, ReadsVersions2And3) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }";
  for (int major : {2, 3}) {
    Array array = Parse(MakeNpy(major, dict, FloatBytes({5, 6})));
    EXPECT_EQ(array.shape, (std::vector<int64_t>{1, 2}));
  }
}

TEST(NpyTest, FortranOrderIsHarmlessForOneDimension) {
  Array array = Parse(
      MakeNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", FloatBytes({1, 2})));
  EXPECT_EQ(array.ElementCount(), 2);
}

TEST(NpyTest, IgnoresBytesAfterTheData) {
  Array array = Parse(
      MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", FloatBytes({1, 2})));
  EXPECT_EQ(array.data.size(), 4u);
}

TEST(NpyTest, RejectsBadImages) {
  const std::string good_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  std::string data = FloatBytes({1, 2, 3, 4});
  struct Case {
    std::string image;
    std::string message;
  };
  std::vector<Case> cases = {
      {"", "is empty"},
      {"PK\x03\x04 not npy at all", "wrong magic"},
      {"\x93NUMP", "truncated"},
      {"\x93NUMPY\x01", "truncated"},
      {MakeNpy(1, good_dict, data).substr(0, 40), "truncated: the .npy header needs"},
      {MakeNpy(1, good_dict, data.substr(0, 10)), "needs 16 data bytes, the file has 10"},
      {MakeNpy(4, good_dict, data), "unsupported .npy format version 4.0"},
      {MakeNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", data),
       "big-endian data ('>f4') is not supported; expected little-endian ('<f4')"},
      {MakeNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data),
       "Fortran-order"},
      {MakeNpy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", data),
       "structured dtypes are not supported"},
      {MakeNpy(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", data),
       "unsupported dtype '<c8'"},
      {MakeNpy(1, "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", data),
       "unsupported dtype '<U3'"},
      {MakeNpy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", data),
       "unsupported dtype '|O'"},
      {MakeNpy(1, "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", data),
       "has no byte order"},
      {MakeNpy(1, "{'descr': '<f4', 'shape': (2, 2), }", data), "lacks one of"},
      {MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", data),
       "malformed .npy header"},
      {MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': True}", data),
       "unexpected key 'x'"},
      {MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2), }", data),
       "malformed .npy header: expected a non-negative integer"},
      {MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2) ", data),
       "malformed .npy header"},
      {MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8)}",
               data),
       "too large"},
  };
  for (const Case& test_case : cases) {
    SCOPED_TRACE(test_case.image.substr(0, 80));
    std::string message = ParseError(test_case.image);
    EXPECT_THAT(message, HasSubstr(test_case.message));
    EXPECT_THAT(message, HasSubstr("test.npy"));
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

// Whatever a damaged file holds, parsing ends in an array or an NpyError, never a crash or a
// read past the end (the sanitizer builds check the latter).
TEST(NpyTest, SurvivesEveryTruncationAndByteCorruption) {
  std::string image(kNumpyArange6, sizeof(kNumpyArange6) - 1);
  for (size_t length = 0; length < image.size(); ++length) {
    std::vector<std::byte> bytes = Bytes(image.substr(0, length));
    EXPECT_THROW(ParseNpy(bytes.data(), bytes.size(), "cut.npy"), NpyError) << length;
  }
  uint32_t state = 7;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string damaged = image;
    for (int flips = 0; flips < 3; ++flips) {
      state = state * 1664525u + 1013904223u;
      size_t position = (state >> 8) % 128;  // inside the header, where parsing happens
      state = state * 1664525u + 1013904223u;
      damaged[position] = static_cast<char>(state >> 24);
    }
    std::vector<std::byte> bytes = Bytes(damaged);
    try {
      Array array = ParseNpy(bytes.data(), bytes.size(), "damaged.npy");
      EXPECT_LE(array.data.size(), bytes.size());
    } catch (const NpyError&) {
    }
  }
}

TEST(NpyTest, ReadReportsUnreadableFiles) {
  TempDirectory dir;
  try {
    ReadNpy(dir.File("missing.npy"));
    FAIL() << "no error";
  } catch (const NpyError& error) {
    EXPECT_THAT(error.what(), HasSubstr("missing.npy"));
    EXPECT_THAT(error.what(), HasSubstr("No such file or directory"));
  }
  fs::create_directory(dir.File("folder.npy"));
  EXPECT_THROW(ReadNpy(dir.File("folder.npy")), NpyError);
}

TEST(AtomicFileWriterTest, NothingAppearsUntilCommit) {
  TempDirectory dir;
  {
    AtomicFileWriter writer(dir.File("out.npy"));
    writer.Write("abc", 3);
    EXPECT_FALSE(fs::exists(dir.File("out.npy")));
  }
  EXPECT_EQ(dir.EntryCount(), 0u);
  {
    AtomicFileWriter writer(dir.File("out.npy"));
    writer.Write("abc", 3);
    writer.Commit();
  }
  EXPECT_EQ(dir.EntryCount(), 1u);
  EXPECT_EQ(fs::file_size(dir.File("out.npy")), 3u);
}

TEST(AtomicFileWriterTest, AbandonedWriteKeepsTheOldFile) {
  TempDirectory dir;
  { std::ofstream(dir.File("out.npy")) << "old"; }
  {
    AtomicFileWriter writer(dir.File("out.npy"));
    writer.Write("new contents", 12);
  }
  std::ifstream file(dir.File("out.npy"));
  std::string contents((std::istreambuf_iterator<char>(file)), {});
  EXPECT_EQ(contents, "old");
  EXPECT_EQ(dir.EntryCount(), 1u);
}

TEST(AtomicFileWriterTest, CommittedFileHasOrdinaryPermissions) {
  TempDirectory dir;
  mode_t old_mask = ::umask(022);
  AtomicFileWriter writer(dir.File("out.npy"));
  writer.Commit();
  ::umask(old_mask);
  struct stat info {};
  ASSERT_EQ(::stat(dir.File("out.npy").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

TEST(AtomicFileWriterTest, RejectsUnwritableDestinations) {
  TempDirectory dir;
  try {
    AtomicFileWriter writer(dir.File("no/such/dir/out.npy"));
    FAIL() << "no error";
  } catch (const NpyError& error) {
    EXPECT_THAT(error.what(), HasSubstr("No such file or directory"));
    EXPECT_THAT(error.what(), HasSubstr("expected a path in an existing, writable directory"));
  }
  fs::create_directory(dir.File("folder"));
  try {
    AtomicFileWriter writer(dir.File("folder"));
    FAIL() << "no error";
  } catch (const NpyError& error) {
    EXPECT_THAT(error.what(), HasSubstr("is a directory"));
  }
  EXPECT_EQ(dir.EntryCount(), 1u);
}

TEST(NpyTest, FormatShapeLooksLikePython) {
  EXPECT_EQ(FormatShape({}), "()");
  EXPECT_EQ(FormatShape({5}), "(5,)");
  EXPECT_EQ(FormatShape({1, 2, 3}), "(1, 2, 3)");
}

}  // namespace
}  // namespace upsample_grad::npy
