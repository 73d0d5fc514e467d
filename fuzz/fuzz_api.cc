// libFuzzer target over the whole public API of every operator in the library's table
// (include/aclnn_upsample/operators.h: the bilinear, antialiased bicubic and bilinear, bicubic,
// nearest and nearest-exact resizes and their gradients): tensor creation, phase 1, phase 2 and
// the executor life cycle. The first byte picks the table's row (byte % rows), and everything
// that differs between operators comes from that row (its direction, its flags, among them
// whether it has alignCorners and scales at all: where not, the values passed must be ignored)
// or from its mode's formulas in fuzz/reference.cc, so a new row is fuzzed without a change here
// (a new mode needs its formulas in the reference first: LLVMFuzzerInitialize refuses to start
// without them). Rows are appended to the table, so a seed keeps its row.
//
// The input is read front to back as a fixed sequence of fields (see ReadCase); a missing byte
// reads as 0, and 0 (or any value past the listed ones) always selects the ordinary, valid
// choice, so that short or random inputs mostly make calls that get as far as the kernels.
// fuzz/make_corpus.py writes the same fields to build the seed corpus.
//
// Every call is checked against the contract (/work/shared/spec/OPERATORS.md), aborting on a
// violation with a description of the case:
//  - statuses are ACLNN_SUCCESS, 161001 or 161002, and phase 1 succeeds exactly when an
//    independent reading of section 3 says the call is valid (161001 for null handles). A valid
//    call may fail only by running out of memory (561000); the fuzzer never makes one that
//    could (see kPlanEntryBudget), so 561000 is always a violation;
//  - a failure leaves a message that names the operator and writes nothing anywhere;
//  - a success writes nothing outside out's view and never touches the tensor read;
//  - small problems match fuzz/reference.cc (float64) within the contract's tolerance (nearest
//    forward results exactly: they are copies of input elements); larger
//    ones with finite, bounded inputs give no NaN (and no Inf where nothing can overflow);
//  - NaN/Inf read reach every element they contribute to;
//  - executors: misuse is rejected with the right status, a single-use executor is consumed by
//    phase 2 even when it fails, repeatable ones give bitwise equal runs, results are bitwise
//    equal for different thread counts, and no call sequence leaks an executor.
// ASan and UBSan (the build script's flags) catch memory and undefined-behaviour errors, and
// every buffer is allocated to exactly its declared size, so that ASan sees overruns.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_upsample/operators.h"
#include "fuzz/reference.h"
#include "runtime/executor.h"  // LiveExecutorCount: no call sequence may leak an executor

namespace {

using Int128 = __int128;

// Every buffer holds at most this many elements; larger declared storage is clamped to it, so
// that phase 1 always sees the storage that really exists.
constexpr int64_t kStorageCap = int64_t{1} << 20;
// Phase 2 runs only when its estimated multiply-adds stay below this (cheap iterations).
constexpr double kWorkBudget = 2e6;
// The float64 reference runs when both tensors have at most this many elements...
constexpr int64_t kReferenceElements = 4096;
// ...and its dense products stay below this many multiply-adds.
constexpr double kReferenceBudget = 1e6;
constexpr int64_t kMaxDim = int64_t{1} << 20;
// Phase 1 stores every entry of both 1-D matrices, about 20 bytes each. Where formula 1.2 is
// defined in float64 each input (each output, upsampling) is in at most 5 rows' windows, so a
// valid call has at most 5 * 2^20 entries on its long axis and few on the other (the 60 GiB
// rule): under 6 M. But a bicubic scale so small that 2 / scale overflows (calls the model
// leaves open, see Expect) gives every row of the library's matrix every input: up to 2^40
// entries, 1.3 GB and 7 s of phase 1 at 8192 x 8192 already. Calls beyond this budget, which
// only those reach, are not made: they could only fail for memory (561000), stop the fuzzer at
// its memory limit or time out. So a 561000 from any call that is made is a violation.
constexpr double kPlanEntryBudget = double{1 << 23};

constexpr aclnnStatus kNullptr = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;

std::string g_case;  // what the current input does, printed with any violation

[[noreturn]] void Violation(const char* file, int line, const char* condition,
                            const std::string& detail) {
  std::fprintf(stderr, "\n=== contract violation at %s:%d: %s\n%s\ncase: %s\nrecent error: %s\n",
               file, line, condition, detail.c_str(), g_case.c_str(), aclGetRecentErrMsg());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(condition, detail)                                      \
  do {                                                                     \
    if (!(condition)) Violation(__FILE__, __LINE__, #condition, (detail)); \
  } while (0)

std::string Join(const std::vector<int64_t>& values) {
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "}";
}

std::string Num(double v) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

int64_t Saturate(Int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// ---------------------------------------------------------------------------------------------
// Input reading.

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(U8()) << (8 * i);
    return v;
  }
  uint64_t U64() {
    const uint64_t low = U32();
    return low | (static_cast<uint64_t>(U32()) << 32);
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// splitmix64: element values come from a seed, so inputs stay short.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  uint64_t state_;
};

// ---------------------------------------------------------------------------------------------
// Element types, written and read independently of the library's conversions.

enum class Elem { kF32, kF16, kBF16, kOther };

Elem ElemOf(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return Elem::kF32;
    case ACL_FLOAT16:
      return Elem::kF16;
    case ACL_BF16:
      return Elem::kBF16;
    default:
      return Elem::kOther;
  }
}

// Unsupported dtypes get 8-byte elements: the library must reject them before any access.
size_t ElemBytes(Elem e) { return e == Elem::kF32 ? 4 : e == Elem::kOther ? 8 : 2; }

double MaxFinite(Elem e) {
  if (e == Elem::kF16) return 65504.0;
  if (e == Elem::kBF16) return 0x1.FEp127;
  return std::numeric_limits<float>::max();
}

// One unit in the last place of `r` in the output dtype (0 for float32: its bound is relative).
double Ulp(Elem e, double r) {
  if (e == Elem::kF32) return 0.0;
  const int mantissa_bits = e == Elem::kF16 ? 10 : 7;
  const int min_exponent = e == Elem::kF16 ? -14 : -126;
  const double a = std::min(std::fabs(r), MaxFinite(e));
  int exponent = a > 0 ? std::ilogb(a) : min_exponent;
  exponent = std::max(exponent, min_exponent);
  return std::ldexp(1.0, exponent - mantissa_bits);
}

uint16_t ToHalfBits(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return 0x7E00;
  const double a = std::fabs(v);
  if (a >= 65520.0) return sign | 0x7C00;  // rounds (ties to even) beyond 65504
  if (a < 0x1.0p-14) return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1.0p24));
  int exponent = std::ilogb(a);
  double q = std::nearbyint(std::ldexp(a, 10 - exponent));  // in [1024, 2048]
  if (q == 2048.0) {
    q = 1024.0;
    ++exponent;
  }
  return sign | static_cast<uint16_t>((exponent + 15) << 10) |
         static_cast<uint16_t>(static_cast<int>(q) - 1024);
}

double FromHalfBits(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F)
    return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

uint16_t ToBFloat16Bits(double v) {
  const float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return 0x7FC0;
  const uint32_t lower = u & 0xFFFF;
  uint32_t upper = u >> 16;
  if (lower > 0x8000 || (lower == 0x8000 && (upper & 1))) ++upper;
  return static_cast<uint16_t>(upper);
}

double FromBFloat16Bits(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void Encode(Elem e, double v, uint8_t* p) {
  if (e == Elem::kF32) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (e == Elem::kF16 || e == Elem::kBF16) {
    const uint16_t h = e == Elem::kF16 ? ToHalfBits(v) : ToBFloat16Bits(v);
    std::memcpy(p, &h, 2);
  } else {
    std::memcpy(p, &v, 8);
  }
}

double Decode(Elem e, const uint8_t* p) {
  if (e == Elem::kF32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return e == Elem::kF16 ? FromHalfBits(h) : FromBFloat16Bits(h);
}

// A quiet NaN with a payload that no computation produces: an element still holding it was not
// written.
void WriteSentinel(Elem e, uint8_t* p) {
  const uint32_t f32 = 0x7FC5A5A5u;
  const uint16_t f16 = 0x7E5A, bf16 = 0x7FA5;
  if (e == Elem::kF32) std::memcpy(p, &f32, 4);
  if (e == Elem::kF16) std::memcpy(p, &f16, 2);
  if (e == Elem::kBF16) std::memcpy(p, &bf16, 2);
  if (e == Elem::kOther) std::memset(p, 0xA5, 8);
}

// Values of the tensor read, by mode.
double MakeValue(Elem e, uint8_t mode, Rng& rng) {
  const double sign = (rng.Next() & 1) ? -1.0 : 1.0;
  switch (mode % 8) {
    case 0:
      return static_cast<double>(static_cast<int>(rng.Next() % 17) - 8);
    case 1:
      return 2.0 * rng.Unit() - 1.0;
    case 2:
      return 2000.0 * rng.Unit() - 1000.0;
    case 3:
      return sign * (0.5 + 0.5 * rng.Unit()) * MaxFinite(e);  // overflows when summed
    case 4: {
      // Subnormals of the dtype (float32 for bf16's range too).
      if (e == Elem::kF16) return sign * std::ldexp(static_cast<double>(rng.Next() % 1024), -24);
      if (e == Elem::kBF16) return sign * std::ldexp(static_cast<double>(rng.Next() % 128), -133);
      return sign * std::ldexp(static_cast<double>(rng.Next() % (1u << 23)), -149);
    }
    case 5: {
      // Any bit pattern: NaN, Inf, subnormals, huge values.
      if (e == Elem::kF32) {
        const uint32_t u = static_cast<uint32_t>(rng.Next());
        float f;
        std::memcpy(&f, &u, 4);
        return f;
      }
      const uint16_t h = static_cast<uint16_t>(rng.Next());
      return e == Elem::kF16 ? FromHalfBits(h) : FromBFloat16Bits(h);
    }
    case 6: {
      const double constants[] = {1.0, 60000.0, 1e-40, 0x1.0p-20, 0.0, -0.0, 3.0e38, 0.1};
      return constants[(mode / 8) % 8];
    }
    default: {
      const uint64_t pick = rng.Next() % 64;
      if (pick == 0) return std::numeric_limits<double>::quiet_NaN();
      if (pick == 1) return sign * INFINITY;
      return static_cast<double>(static_cast<int>(rng.Next() % 17) - 8);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The case: everything one input asks for.

using Operator = aclnn_upsample_operator;

bool IsForward(const Operator& op) { return op.direction == ACLNN_UPSAMPLE_FORWARD; }

// The reference's formulas for a row's mode, if it has them.
bool ReferenceKind(const Operator& op, fuzz_ref::Kind* kind) {
  static const struct {
    const char* mode;
    fuzz_ref::Kind kind;
  } kModes[] = {{"bilinear", fuzz_ref::Kind::kBilinear},
                {"bicubic_aa", fuzz_ref::Kind::kBicubicAA},
                {"bilinear_aa", fuzz_ref::Kind::kBilinearAA},
                {"bicubic", fuzz_ref::Kind::kBicubic},
                {"nearest", fuzz_ref::Kind::kNearest},
                {"nearest_exact", fuzz_ref::Kind::kNearestExact}};
  for (const auto& entry : kModes) {
    if (std::strcmp(op.mode, entry.mode) == 0) {
      *kind = entry.kind;
      return true;
    }
  }
  return false;
}

// Only for rows LLVMFuzzerInitialize has checked.
fuzz_ref::Kind KindOf(const Operator& op) {
  fuzz_ref::Kind kind = fuzz_ref::Kind::kBilinear;
  (void)ReferenceKind(op, &kind);
  return kind;
}

// A row whose CANN prototype takes float scales (aclnnUpsampleNearest2dV2) receives the table's
// double scales rounded to float.
bool TakesFloatScales(const Operator& op) { return op.scales_are_float; }

// A scale as the operator receives it: 0 (not given) where it has no scales parameter.
double ReceivedScale(const Operator& op, double scale) {
  if (!op.takes_scales) return 0.0;
  return TakesFloatScales(op) ? static_cast<double>(static_cast<float>(scale)) : scale;
}

// One axis of a call as the operator reads it: the alignCorners and scale it has, its mode's
// formulas and its scale rule.
fuzz_ref::AxisParams AxisOf(const Operator& op, int64_t in, int64_t out, bool align, double scale) {
  fuzz_ref::AxisParams axis;
  axis.kind = KindOf(op);
  axis.in_size = in;
  axis.out_size = out;
  axis.align_corners = align && op.takes_align_corners;
  axis.scale = ReceivedScale(op, scale);
  axis.consistent_scales = op.scales_need_consistent_size;
  return axis;
}

bool IsNearestForward(const Operator& op) {
  const fuzz_ref::Kind kind = KindOf(op);
  return IsForward(op) &&
         (kind == fuzz_ref::Kind::kNearest || kind == fuzz_ref::Kind::kNearestExact);
}

const Operator& PickOperator(uint8_t v) {
  return *aclnn_upsample_operator_at(v % aclnn_upsample_operator_count());
}

// Another row, for handing one operator's executor to another's phase 2.
const Operator& OtherOperator(const Operator& op) {
  const size_t count = aclnn_upsample_operator_count();
  for (size_t i = 0; i < count; ++i) {
    if (aclnn_upsample_operator_at(i) == &op) return *aclnn_upsample_operator_at((i + 1) % count);
  }
  return op;
}

struct TensorCase {
  const char* name = "";
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_NCHW;
  std::vector<int64_t> dims;
  bool null_strides = false;
  std::vector<int64_t> strides;  // when !null_strides
  int64_t offset = 0;
  std::vector<int64_t> storage_dims;
  bool null_handle = false;  // pass nullptr instead of the tensor
  bool null_data = false;    // create the tensor with a null data pointer
  uint8_t layout = 0;

  // What the library sees (strides as aclCreateTensor completes them).
  bool strides_defined = true;  // false: contiguous strides overflow int64
  std::vector<int64_t> eff_strides;
  aclTensor* handle = nullptr;
  uint8_t* data = nullptr;  // start of the storage

  Elem elem() const { return ElemOf(dtype); }
  bool CreateFails() const { return dims.size() > 8 || storage_dims.size() > 8; }
  bool Empty() const {
    return std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d == 0; });
  }
  Int128 StorageElements() const {  // saturated product; negative dims give -1
    Int128 p = 1;
    for (int64_t d : storage_dims) {
      if (d < 0) return -1;
      p = d == 0 ? 0 : std::min<Int128>(p, Int128{1} << 64) * d;
    }
    return p;
  }
  std::string Describe() const {
    return std::string(name) + "{dtype " + std::to_string(dtype) + ", format " +
           std::to_string(format) + ", dims " + Join(dims) + ", strides " +
           (null_strides ? "null" : Join(strides)) + ", offset " + std::to_string(offset) +
           ", storage " + Join(storage_dims) + (null_handle ? ", null handle" : "") +
           (null_data ? ", null data" : "") + "}";
  }
};

struct Case {
  const Operator* op = nullptr;
  bool align = false;
  bool destroy_inputs_early = false;
  bool shared_buffer = false;
  bool use_stream = false;
  int threads = 2;
  TensorCase source, out;  // the tensor the operator reads, the one it writes
  // The logical problem, in forward terms (the image is h_in x w_in, outputSize h_out x w_out):
  // as read, before any mutation; for a valid call, as the call describes it (Runner::Run).
  int64_t n = 1, c = 1, h_out = 1, w_out = 1, h_in = 1, w_in = 1;
  bool null_output_size = false, null_input_size = false;
  std::vector<int64_t> output_size, input_size;
  double scales_h = 0.0, scales_w = 0.0;
  bool null_ws_size = false, null_executor = false;
  uint8_t phase2_mode = 0;
  uint8_t value_mode = 0;
  uint64_t value_seed = 0;

  // The planes of the tensor read and of the tensor written: a backward operator reads the
  // forward output and writes the forward input.
  int64_t SourceH() const { return IsForward(*op) ? h_in : h_out; }
  int64_t SourceW() const { return IsForward(*op) ? w_in : w_out; }
  int64_t ResultH() const { return IsForward(*op) ? h_out : h_in; }
  int64_t ResultW() const { return IsForward(*op) ? w_out : w_in; }

  std::string Describe() const {
    return std::string(op->name) + " align=" + (align ? "1" : "0") +
           " threads=" + std::to_string(threads) +
           " outputSize=" + (null_output_size ? "null" : Join(output_size)) +
           " inputSize=" + (null_input_size ? "null" : Join(input_size)) +
           " scales=" + Num(scales_h) + "," + Num(scales_w) +
           " nullWs=" + (null_ws_size ? "1" : "0") + " nullExec=" + (null_executor ? "1" : "0") +
           " shared=" + (shared_buffer ? "1" : "0") +
           " destroyEarly=" + (destroy_inputs_early ? "1" : "0") +
           " phase2=" + std::to_string(phase2_mode) + " values=" + std::to_string(value_mode) +
           "\n  " + source.Describe() + "\n  " + out.Describe();
  }
};

int64_t PickDim(uint8_t kind, uint32_t v) {
  switch (kind) {
    case 1:
      return 1 + v % 16;
    case 2:
      return 1 + v % 64;
    case 3:
      return 1 + v % 300;
    case 4:
      return 0;
    case 5:
      return kMaxDim;
    case 6:
      return kMaxDim + 1;
    case 7:
      return 1 + v % kMaxDim;
    case 8:
      return -1 - static_cast<int64_t>(v % 4);
    case 9: {
      const int64_t extremes[] = {std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(),
                                  int64_t{1} << 31,
                                  (int64_t{1} << 31) - 1,
                                  int64_t{1} << 32,
                                  int64_t{1} << 40,
                                  int64_t{1} << 62,
                                  3037000500};  // squares past 2^63
      return extremes[v % 8];
    }
    default:
      return 1 + v % 4;
  }
}

double PickScale(uint8_t kind, uint64_t v, int64_t in, int64_t out) {
  const double ratio = in != 0 ? static_cast<double>(out) / static_cast<double>(in) : 1.0;
  switch (kind) {
    case 1:
      return ratio;  // consistent with outputSize when floor(in * ratio) == out
    case 2: {
      const double specials[] = {
          -1.0,   -0.0,  NAN,  INFINITY, -INFINITY, 1e300, 1e-300,
          5e-324, 0.5,   2.0,  1.05,     50.0,      0.02,  0.0199,
          100.0,  101.0, 0.01, 0.009,    1e-15,     1e6,   1.7976931348623157e308,
          0.3};
      return specials[v % (sizeof(specials) / sizeof(specials[0]))];
    }
    case 3: {
      double d;
      std::memcpy(&d, &v, 8);
      return d;
    }
    case 4:
      return -ratio;
    case 5:
      return ratio * (1.0 + 1e-9);
    case 6:
      return ratio * (0.5 + static_cast<double>(v % 1000) / 500.0);
    default:
      return 0.0;
  }
}

// Strides for `dims` with the innermost-last dimension order `order`, each step padded by
// `pad[d]` elements (row-major when order is 0..rank-1 and pads are 0).
std::vector<int64_t> OrderedStrides(const std::vector<int64_t>& dims, const std::vector<int>& order,
                                    const std::vector<int64_t>& pad) {
  std::vector<int64_t> strides(dims.size(), 0);
  Int128 step = 1;
  for (size_t k = order.size(); k-- > 0;) {
    const int d = order[k];
    strides[d] = Saturate(step);
    step = std::min<Int128>(step, Int128{1} << 62) * (std::max<Int128>(dims[d], 1) + pad[d]);
  }
  return strides;
}

void MakeLayout(TensorCase* t, uint8_t layout, uint32_t seed) {
  const size_t rank = t->dims.size();
  Rng rng(seed);
  std::vector<int> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = static_cast<int>(d);
  std::vector<int64_t> no_pad(rank, 0);
  t->layout = layout;
  t->null_strides = false;
  switch (layout) {
    case 1:
      t->strides = OrderedStrides(t->dims, order, no_pad);
      break;
    case 2:  // channels last: NCHW dims stored N, H, W, C
      if (rank == 4) order = {0, 2, 3, 1};
      t->strides = OrderedStrides(t->dims, order, no_pad);
      break;
    case 3:
      for (size_t d = rank; d > 1; --d) std::swap(order[d - 1], order[rng.Next() % d]);
      t->strides = OrderedStrides(t->dims, order, no_pad);
      break;
    case 4: {
      std::vector<int64_t> pad(rank);
      for (auto& p : pad) p = static_cast<int64_t>(rng.Next() % 3);
      t->strides = OrderedStrides(t->dims, order, pad);
      break;
    }
    case 5:
      t->strides.assign(rank, 0);
      break;  // broadcast: every element at one address
    case 6: {
      t->strides = OrderedStrides(t->dims, order, no_pad);
      const int64_t values[] = {-1,
                                0,
                                1,
                                2,
                                int64_t{1} << 31,
                                int64_t{1} << 62,
                                std::numeric_limits<int64_t>::max(),
                                std::numeric_limits<int64_t>::min(),
                                -(int64_t{1} << 40),
                                3};
      if (rank > 0) t->strides[rng.Next() % rank] = values[rng.Next() % 10];
      break;
    }
    case 7:
      t->strides.resize(rank);
      for (auto& s : t->strides) s = static_cast<int64_t>(rng.Next() % 40) - 2;
      break;
    default:
      t->null_strides = true;
      break;
  }
}

// Elements the storage must hold for the view (non-negative strides), at least 1.
// Saturates at 2^100: each (dim - 1) * stride may approach 2^126, so a sum of them overflows
// __int128, while anything past int64 ends up as the same clamped storage.
Int128 NeededStorage(const TensorCase& t, const std::vector<int64_t>& strides) {
  constexpr Int128 kSaturated = Int128{1} << 100;
  Int128 need = Int128{std::max<int64_t>(t.offset, 0)} + 1;
  if (t.Empty()) return need;
  for (size_t d = 0; d < t.dims.size(); ++d) {
    if (t.dims[d] <= 0) continue;
    const Int128 reach = Int128{t.dims[d] - 1} * std::max<int64_t>(strides[d], 0);
    need = std::min(need + std::min(reach, kSaturated), kSaturated);
  }
  return need;
}

void MakeStorage(TensorCase* t, uint8_t kind, uint32_t seed) {
  const Int128 need = NeededStorage(*t, t->eff_strides);
  const int64_t n = Saturate(need);
  switch (kind) {
    case 1:
      t->storage_dims = {Saturate(need + seed % 7)};
      break;
    case 2:
      t->storage_dims = {n - 1};
      break;  // one element short
    case 3:
      t->storage_dims = (seed & 1) ? std::vector<int64_t>{1, n} : std::vector<int64_t>{n, 1};
      break;
    case 4:
      t->storage_dims = {};
      break;  // 0-D storage: one element
    case 5:
      t->storage_dims = {n, 0};
      break;
    case 6:
      t->storage_dims = {-1 - static_cast<int64_t>(seed % 3), n};
      break;
    case 7:
      t->storage_dims = {int64_t{1} << 40};
      break;
    case 8:
      t->storage_dims.assign(9, 1);
      break;  // more than aclCreateTensor takes
    case 9:
      t->storage_dims = {2, Saturate((need + 1) / 2)};
      break;
    default:
      t->storage_dims = {n};
      break;
  }
  if (t->storage_dims.size() <= 8 && t->StorageElements() > kStorageCap)
    t->storage_dims = {kStorageCap};
}

void ReadTensor(Reader& in, TensorCase* t) {
  const uint8_t layout = in.U8();
  const uint8_t offset_kind = in.U8();
  const uint8_t storage_kind = in.U8();
  const uint8_t mutation = in.U8();
  const uint32_t seed = in.U32();
  switch (mutation) {
    case 1:
      if (!t->dims.empty()) t->dims.pop_back();
      break;
    case 2:
      t->dims.push_back(1);
      break;
    case 3:
      if (!t->dims.empty()) {
        int64_t& d = t->dims[seed % t->dims.size()];
        d = Saturate(Int128{d} + 1);
      }
      break;
    case 4:
      t->dims.clear();
      break;
    case 5:
      t->dims.resize(9, 1);
      break;
    case 6:
      t->null_handle = true;
      break;
    case 7:
      t->null_data = true;
      break;
    case 8:
      if (!t->dims.empty()) t->dims[seed % t->dims.size()] = -1;
      break;
    default:
      break;
  }
  switch (offset_kind) {
    case 1:
      t->offset = seed % 17;
      break;
    case 2:
      t->offset = -1;
      break;
    case 3:
      t->offset = kStorageCap;
      break;
    case 4:
      t->offset = std::numeric_limits<int64_t>::max();
      break;
    case 5:
      t->offset = std::numeric_limits<int64_t>::min();
      break;
    case 6:
      t->offset = int64_t{1} << 62;
      break;
    default:
      t->offset = 0;
      break;
  }
  MakeLayout(t, layout, seed);
  // aclCreateTensor completes null strides row-major in int64; where that overflows, the
  // library's strides are unknown here.
  if (t->null_strides) {
    const size_t rank = t->dims.size();
    t->eff_strides.assign(rank, 0);
    Int128 step = 1;  // stays within int64 until `overflow`
    bool overflow = false;
    for (size_t d = rank; d-- > 0;) {
      if (overflow) t->strides_defined = false;
      t->eff_strides[d] = static_cast<int64_t>(step);
      step *= t->dims[d];
      if (step > std::numeric_limits<int64_t>::max() ||
          step < std::numeric_limits<int64_t>::min()) {
        overflow = true;
        step = 1;
      }
    }
  } else {
    t->eff_strides = t->strides;
  }
  MakeStorage(t, storage_kind, seed);
}

// Unsupported values stay inside the enums' value ranges ([-32, 31] and [-4, 3] for the
// enumerators declared here): converting anything else to the enum type is undefined
// behaviour in C++ already in this file, before the library sees it.
aclDataType PickDType(uint8_t v) {
  const aclDataType others[] = {ACL_DT_UNDEFINED,
                                ACL_INT8,
                                ACL_INT32,
                                ACL_UINT8,
                                ACL_INT16,
                                ACL_UINT16,
                                ACL_UINT32,
                                ACL_INT64,
                                ACL_UINT64,
                                ACL_DOUBLE,
                                ACL_BOOL,
                                ACL_STRING,
                                ACL_COMPLEX64,
                                ACL_COMPLEX128,
                                static_cast<aclDataType>(5),
                                static_cast<aclDataType>(26),
                                static_cast<aclDataType>(31)};
  if (v % 64 < 20) return ACL_FLOAT;
  if (v % 64 < 38) return ACL_FLOAT16;
  if (v % 64 < 56) return ACL_BF16;
  return others[v % (sizeof(others) / sizeof(others[0]))];
}

aclFormat PickFormat(const Operator& op, uint8_t v) {
  const aclFormat others[] = {ACL_FORMAT_UNDEFINED,      ACL_FORMAT_NCHW,
                              ACL_FORMAT_NHWC,           ACL_FORMAT_ND,
                              static_cast<aclFormat>(3), static_cast<aclFormat>(-2),
                              static_cast<aclFormat>(-4)};
  if (v == 1) {  // the operator's other format, if any
    return op.accepts_nhwc ? ACL_FORMAT_NHWC : op.accepts_nd ? ACL_FORMAT_ND : ACL_FORMAT_NCHW;
  }
  if (v >= 2 && v < 16) return others[v % 7];
  return ACL_FORMAT_NCHW;
}

std::vector<int64_t> MutateArray(std::vector<int64_t> values, uint8_t kind, uint32_t seed,
                                 bool* null_handle) {
  const int64_t replacements[] = {0, -1, kMaxDim + 1, std::numeric_limits<int64_t>::min()};
  switch (kind) {
    case 1:
      values.pop_back();
      break;
    case 2:
      values.push_back(1);
      break;
    case 3:
      *null_handle = true;
      break;
    case 4:
      values[seed % values.size()] = replacements[(seed >> 8) % 4];
      break;
    case 5:
      values.clear();
      break;
    case 6: {
      int64_t& v = values[seed % values.size()];
      v = Saturate(Int128{v} + 1);
      break;
    }
    default:
      break;
  }
  return values;
}

Case ReadCase(const uint8_t* data, size_t size) {
  Reader in(data, size);
  Case k;
  k.op = &PickOperator(in.U8());
  const uint8_t flags = in.U8();  // bit 0 unused (it picked the operator before the table)
  k.align = flags & 2;
  k.destroy_inputs_early = flags & 4;
  k.shared_buffer = flags & 8;
  k.use_stream = flags & 16;
  const int thread_choices[] = {2, 1, 2, 3, 4, 2, 1, 3};
  k.threads = thread_choices[(flags >> 5) & 7];

  const uint8_t dtype_source = in.U8(), dtype_out = in.U8();
  k.source.dtype = PickDType(dtype_source);
  k.out.dtype = dtype_out == 0 ? k.source.dtype : PickDType(dtype_out);
  const uint8_t format_source = in.U8(), format_out = in.U8();
  k.source.format = PickFormat(*k.op, format_source);
  k.out.format = format_out == 0 ? k.source.format : PickFormat(*k.op, format_out);

  int64_t* logical[] = {&k.n, &k.c, &k.h_out, &k.w_out, &k.h_in, &k.w_in};
  for (int64_t* dim : logical) {
    const uint8_t kind = in.U8();
    *dim = PickDim(kind, in.U32());
  }
  // Views and arrays in the format's axis order (section 3.2).
  const bool nhwc = k.source.format == ACL_FORMAT_NHWC;
  k.source.name = k.op->source_name;
  k.out.name = "out";
  auto dims = [&](int64_t h, int64_t w) {
    return nhwc ? std::vector<int64_t>{k.n, h, w, k.c} : std::vector<int64_t>{k.n, k.c, h, w};
  };
  k.source.dims = dims(k.SourceH(), k.SourceW());
  k.out.dims = dims(k.ResultH(), k.ResultW());
  ReadTensor(in, &k.source);
  ReadTensor(in, &k.out);

  const uint8_t output_kind = in.U8(), input_kind = in.U8();
  const uint32_t array_seed = in.U32();
  k.output_size = MutateArray({k.h_out, k.w_out}, output_kind, array_seed, &k.null_output_size);
  // Passed to forward operators too, which must ignore it (null or not).
  k.input_size =
      MutateArray(dims(k.h_in, k.w_in), input_kind, array_seed >> 16, &k.null_input_size);

  const uint8_t scale_h_kind = in.U8();
  const uint64_t scale_h_value = in.U64();
  const uint8_t scale_w_kind = in.U8();
  const uint64_t scale_w_value = in.U64();
  k.scales_h = PickScale(scale_h_kind, scale_h_value, k.h_in, k.h_out);
  k.scales_w = PickScale(scale_w_kind, scale_w_value, k.w_in, k.w_out);

  const uint8_t nulls = in.U8();
  k.null_ws_size = nulls == 1 || nulls == 3;
  k.null_executor = nulls == 2 || nulls == 3;
  k.phase2_mode = in.U8();
  k.value_mode = in.U8();
  k.value_seed = in.U64();
  if (ElemBytes(k.source.elem()) != ElemBytes(k.out.elem())) k.shared_buffer = false;
  return k;
}

// ---------------------------------------------------------------------------------------------
// An independent reading of section 3: what phase 1 must answer.

struct Expectation {
  bool valid = false;
  bool null_handle = false;  // 161001 required
  bool null_data = false;    // a null data pointer is involved: 161001 or 161002
  bool decided = true;       // false: the contract leaves the answer open
  std::string reason;
  // Entries of the two 1-D matrices phase 1 would build; set once the shapes are known valid.
  double plan_entries = 0.0;
  // The problem as the call describes it (forward terms), once the shapes are known valid.
  int64_t n = 0, c = 0, h_in = 0, w_in = 0, h_out = 0, w_out = 0;
};

// The entries of one axis's matrix: the model's count, except that an antialiased axis where
// formula 1.2 is undefined gets every (o, i) pair, which is what a ratio beyond float64's range
// gives each row.
double AxisEntries(const fuzz_ref::AxisParams& axis) {
  const bool antialiased =
      axis.kind == fuzz_ref::Kind::kBicubicAA || axis.kind == fuzz_ref::Kind::kBilinearAA;
  if (antialiased && !fuzz_ref::IsWellDefined(axis)) {
    return static_cast<double>(axis.in_size) * static_cast<double>(axis.out_size);
  }
  return static_cast<double>(fuzz_ref::CountEntries(axis));
}

// Exact, by marking each element's index in the storage (the caller checked that the view fits
// storage of at most kStorageCap elements; more elements than that must repeat).
bool AddressesDistinct(const TensorCase& t) {
  Int128 count = 1;
  for (int64_t d : t.dims) count *= d;
  const Int128 storage = t.StorageElements();
  if (count > storage || storage > kStorageCap) return false;
  std::vector<uint8_t> seen(static_cast<size_t>(storage), 0);
  const auto& s = t.eff_strides;
  for (int64_t i0 = 0; i0 < t.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < t.dims[1]; ++i1)
      for (int64_t i2 = 0; i2 < t.dims[2]; ++i2)
        for (int64_t i3 = 0; i3 < t.dims[3]; ++i3) {
          uint8_t& mark = seen[t.offset + i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3]];
          if (mark) return false;
          mark = 1;
        }
  return true;
}

Expectation Expect(const Case& k) {
  Expectation e;
  // A null data pointer with a non-empty view: the contract does not rank it among the other
  // checks, so a call that has it and another problem may fail with either status.
  const bool any_null_data =
      !k.source.Empty() && !k.out.Empty() && (k.source.null_data || k.out.null_data);
  auto invalid = [&](const std::string& why) {
    e.reason = why;
    e.null_data = any_null_data;
    return e;
  };
  const Operator& op = *k.op;
  const bool forward = IsForward(op);
  const bool source_null = k.source.null_handle || k.source.CreateFails();
  const bool out_null = k.out.null_handle || k.out.CreateFails();
  // A forward signature has no inputSize: whatever is passed for it must be ignored.
  const bool input_size_null = k.null_input_size && !forward;
  if (source_null || out_null || k.null_output_size || input_size_null || k.null_ws_size ||
      k.null_executor) {
    e.null_handle = true;
    return invalid("a null handle");
  }
  const Elem eg = k.source.elem(), eo = k.out.elem();
  if (eg == Elem::kOther || eo == Elem::kOther || k.source.dtype != k.out.dtype)
    return invalid("dtype");
  auto format_ok = [&](aclFormat f) {
    return f == ACL_FORMAT_NCHW || (op.accepts_nhwc && f == ACL_FORMAT_NHWC) ||
           (op.accepts_nd && f == ACL_FORMAT_ND);
  };
  if (!format_ok(k.source.format) || !format_ok(k.out.format) || k.source.format != k.out.format) {
    return invalid("format");
  }
  if (k.source.dims.size() != 4 || k.out.dims.size() != 4 || k.output_size.size() != 2 ||
      (!forward && k.input_size.size() != 4)) {
    return invalid("rank");
  }
  const bool nhwc = k.source.format == ACL_FORMAT_NHWC;
  const int ax_c = nhwc ? 3 : 1, ax_h = nhwc ? 1 : 2, ax_w = nhwc ? 2 : 3;
  // The forward input's shape: a forward call's source is that input.
  const auto& is = forward ? k.source.dims : k.input_size;
  const auto& os = k.output_size;
  for (int64_t v : os) {
    if (v < 1 || v > kMaxDim) return invalid("outputSize value");
  }
  if (is[ax_h] < 1 || is[ax_w] < 1 || is[0] < 0 || is[ax_c] < 0) return invalid("input size value");
  for (int64_t v : is) {
    if (v > kMaxDim) return invalid("input size > 2^20");
  }
  for (const TensorCase* t : {&k.source, &k.out}) {
    for (int64_t d : t->dims) {
      if (d < 0 || d > kMaxDim) return invalid("tensor dimension");
    }
  }
  const int64_t n = is[0], c = is[ax_c], h_in = is[ax_h], w_in = is[ax_w];
  const int64_t h_out = os[0], w_out = os[1];
  const std::vector<int64_t> forward_output =
      nhwc ? std::vector<int64_t>{n, h_out, w_out, c} : std::vector<int64_t>{n, c, h_out, w_out};
  // Either direction reads one of {forward input, forward output} and writes the other.
  if ((forward ? k.out.dims : k.source.dims) != forward_output) return invalid("shape");
  if (!forward && k.out.dims != is) return invalid("shape");
  e.n = n, e.c = c, e.h_in = h_in, e.w_in = w_in, e.h_out = h_out, e.w_out = w_out;
  const fuzz_ref::AxisParams axis_h = AxisOf(op, h_in, h_out, k.align, k.scales_h);
  const fuzz_ref::AxisParams axis_w = AxisOf(op, w_in, w_out, k.align, k.scales_w);
  e.plan_entries = AxisEntries(axis_h) + AxisEntries(axis_w);
  if (Int128{n} * c * h_out >= (Int128{1} << 31)) return invalid("N*C*H_out");
  const Int128 footprint = (Int128{h_out} * w_out + Int128{h_in} * w_in + Int128{h_out} * w_in) *
                           n * c * static_cast<int64_t>(ElemBytes(eg));
  if (footprint >= (Int128{60} << 30)) return invalid("60 GiB");
  for (const TensorCase* t : {&k.source, &k.out}) {
    if (!t->strides_defined) {
      e.decided = false;  // aclCreateTensor's contiguous strides overflow: anything goes
      return invalid("strides overflow");
    }
    for (int64_t s : t->eff_strides) {
      if (s < 0) return invalid("negative stride");
    }
    if (t->offset < 0) return invalid("negative offset");
    const Int128 storage = t->StorageElements();
    if (storage < 0) return invalid("negative storage dimension");
    if (!t->Empty()) {
      Int128 last = t->offset;
      for (size_t d = 0; d < 4; ++d) last += Int128{t->dims[d] - 1} * t->eff_strides[d];
      if (last >= storage) return invalid("view outside storage");
    }
  }
  if (!k.out.Empty() && !AddressesDistinct(k.out)) return invalid("out elements share an address");
  // Overlap is a property of addresses, which a null data pointer does not have.
  const bool null_data =
      !k.out.Empty() && !k.source.Empty() && (k.source.null_data || k.out.null_data);
  if (!null_data && !k.out.Empty() && !k.source.Empty() && k.shared_buffer) {
    const Int128 elem = static_cast<int64_t>(ElemBytes(eg));
    auto span = [&](const TensorCase& t, Int128* begin, Int128* end) {
      Int128 last = 0;
      for (size_t d = 0; d < 4; ++d) last += Int128{t.dims[d] - 1} * t.eff_strides[d];
      *begin = Int128{t.offset} * elem;
      *end = *begin + (last + 1) * elem;
    };
    Int128 gb, ge, ob, oe;
    span(k.source, &gb, &ge);
    span(k.out, &ob, &oe);
    if (gb < oe && ob < ge) return invalid("spans overlap");
  }
  // The rules that differ between operators, from the row's flags (contract 3.3).
  if (!op.accepts_empty && (n == 0 || c == 0)) return invalid("empty tensors not accepted");
  // An operator without scales never sees the ones passed (ReceivedScale gives 0).
  const double scales_h = ReceivedScale(op, k.scales_h), scales_w = ReceivedScale(op, k.scales_w);
  if (op.rejects_negative_scales && (scales_h < 0 || scales_w < 0)) {
    return invalid("negative scales");
  }
  if (!op.scales_need_consistent_size) {  // any positive scale is used as given
    auto ratio = [](double scale, int64_t in, int64_t out) {
      return scale > 0 ? 1.0 / scale : static_cast<double>(in) / static_cast<double>(out);
    };
    if (op.max_upscale > 0 && (!(ratio(scales_h, h_in, h_out) >= 1.0 / op.max_upscale) ||
                               !(ratio(scales_w, w_in, w_out) >= 1.0 / op.max_upscale))) {
      return invalid("upscaling beyond the row's limit");
    }
    // A scale so small that 1/scales, or the filter's centre and support, overflow to Inf
    // leaves formula 1.2 undefined (Inf - Inf); the contract does not say whether such a call
    // is rejected, so either answer is accepted (and no numbers are compared).
    const bool infinite_inverse = (scales_h > 0 && !std::isfinite(1.0 / scales_h)) ||
                                  (scales_w > 0 && !std::isfinite(1.0 / scales_w));
    if (infinite_inverse || !fuzz_ref::IsWellDefined(axis_h) || !fuzz_ref::IsWellDefined(axis_w)) {
      e.decided = false;
      return invalid("undefined for this scale");
    }
  }
  if (null_data) {
    e.null_data = true;
    return invalid("null data pointer");
  }
  e.valid = true;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Buffers.

// Exactly the declared storage in its own heap block, so that ASan sees any overrun.
struct Buffer {
  std::unique_ptr<uint8_t[]> raw;
  size_t size = 0;
  void Allocate(size_t n) {
    size = n;
    raw.reset(new uint8_t[std::max<size_t>(n, 1)]);
  }
  uint8_t* data() const { return raw.get(); }
};

size_t AllocationElements(const TensorCase& t) {
  if (t.storage_dims.size() > 8) return 1;
  const Int128 storage = t.StorageElements();
  if (storage <= 0) return 1;
  return static_cast<size_t>(std::min<Int128>(storage, kStorageCap));
}

// Byte offset of logical element (n, c, h, w) of a validated 4-D view.
int64_t ElementByte(const TensorCase& t, bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w) {
  const auto& s = t.eff_strides;
  const int64_t index = nhwc ? t.offset + n * s[0] + h * s[1] + w * s[2] + c * s[3]
                             : t.offset + n * s[0] + c * s[1] + h * s[2] + w * s[3];
  return index * static_cast<int64_t>(ElemBytes(t.elem()));
}

// ---------------------------------------------------------------------------------------------
// The runner.

class Runner {
 public:
  explicit Runner(const Case& k) : k_(k) {}
  void Run();

 private:
  void Prepare(const Expectation& expected);
  // Calls fn with the byte offset of every element of out's view; only for a valid call.
  void ForEachResultElement(const std::function<void(int64_t byte)>& fn) const;
  void CreateHandles();
  void DestroyInputs();
  aclnnStatus Phase1(uint64_t* ws, aclOpExecutor** executor);
  aclnnStatus Phase2(const Operator& op, void* ws, uint64_t size, aclOpExecutor* executor);
  void RequireUnchanged(const char* when);
  void RequireSuccessfulRun(const char* when);
  void Verify(const char* when);
  void VerifyNumbers(const char* when);
  double EstimatedWork() const;
  void ExecuteValid(uint64_t ws_size, aclOpExecutor* executor);
  void SetThreads(int threads) {
    setenv("ACLNN_UPSAMPLE_NUM_THREADS", std::to_string(threads).c_str(), 1);
  }
  std::vector<uint8_t> Snapshot(const Buffer& b) const {
    return std::vector<uint8_t>(b.data(), b.data() + b.size);
  }

  Case k_;
  Buffer source_buf_, out_buf_;  // out_buf_ unused when shared
  std::vector<uint8_t> source_before_, out_before_;
  aclTensor* source_t_ = nullptr;
  aclTensor* out_t_ = nullptr;
  aclIntArray* output_size_ = nullptr;
  aclIntArray* input_size_ = nullptr;
  aclrtStream stream_ = nullptr;
  bool nhwc_ = false;
  size_t executors_before_ = 0;

  Buffer& OutBuffer() { return k_.shared_buffer ? source_buf_ : out_buf_; }
  std::vector<uint8_t>& OutBefore() { return k_.shared_buffer ? source_before_ : out_before_; }
};

aclrtStream g_stream = nullptr;

void PrimeErrorMessage() {
  // A failing runtime call leaves a message that names no operator: a later operator failure
  // must replace it, a success must leave it.
  (void)aclrtSetDevice(7);
}

void Runner::ForEachResultElement(const std::function<void(int64_t byte)>& fn) const {
  if (k_.out.Empty()) return;
  for (int64_t n = 0; n < k_.n; ++n)
    for (int64_t c = 0; c < k_.c; ++c)
      for (int64_t h = 0; h < k_.ResultH(); ++h)
        for (int64_t w = 0; w < k_.ResultW(); ++w) fn(ElementByte(k_.out, nhwc_, n, c, h, w));
}

void Runner::Prepare(const Expectation& expected) {
  nhwc_ = k_.source.format == ACL_FORMAT_NHWC;
  const size_t source_elems = AllocationElements(k_.source), out_elems = AllocationElements(k_.out);
  const size_t ge = ElemBytes(k_.source.elem()), oe = ElemBytes(k_.out.elem());
  Rng rng(k_.value_seed);
  if (k_.shared_buffer) {
    source_buf_.Allocate(std::max(source_elems * ge, out_elems * oe));
  } else {
    source_buf_.Allocate(source_elems * ge);
    out_buf_.Allocate(out_elems * oe);
  }
  // A block of values repeated over the storage: cheap for large buffers, still varied.
  constexpr size_t kBlock = 4093;  // prime: rows and planes do not line up with the repeats
  const size_t block_elems = std::min(kBlock, source_buf_.size / ge + 1);
  std::vector<uint8_t> block(block_elems * ge);
  for (size_t i = 0; i < block_elems; ++i) {
    Encode(k_.source.elem(), MakeValue(k_.source.elem(), k_.value_mode, rng),
           block.data() + i * ge);
  }
  for (size_t i = 0; i < source_buf_.size; i += block.size()) {
    std::memcpy(source_buf_.data() + i, block.data(), std::min(block.size(), source_buf_.size - i));
  }
  if (k_.shared_buffer) {
    // The sentinel goes into out's view where that is enumerable; the rest holds values.
    if (expected.valid) {
      ForEachResultElement(
          [&](int64_t byte) { WriteSentinel(k_.out.elem(), source_buf_.data() + byte); });
    }
  } else {
    uint8_t sentinel[8];
    WriteSentinel(k_.out.elem(), sentinel);
    for (size_t i = 0; i + oe <= out_buf_.size; i += oe)
      std::memcpy(out_buf_.data() + i, sentinel, oe);
  }
  source_before_ = Snapshot(source_buf_);
  if (!k_.shared_buffer) out_before_ = Snapshot(out_buf_);
  k_.source.data = source_buf_.data();
  k_.out.data = OutBuffer().data();
}

void Runner::CreateHandles() {
  auto create = [](const TensorCase& t) -> aclTensor* {
    aclTensor* handle = aclCreateTensor(t.dims.data(), t.dims.size(), t.dtype,
                                        t.null_strides ? nullptr : t.strides.data(), t.offset,
                                        t.format, t.storage_dims.data(), t.storage_dims.size(),
                                        t.null_data ? nullptr : t.data);
    FUZZ_CHECK((handle == nullptr) == t.CreateFails(),
               std::string("aclCreateTensor result for ") + t.name);
    return handle;
  };
  source_t_ = create(k_.source);
  out_t_ = create(k_.out);
  output_size_ = aclCreateIntArray(k_.output_size.data(), k_.output_size.size());
  input_size_ = aclCreateIntArray(k_.input_size.data(), k_.input_size.size());
  FUZZ_CHECK(output_size_ != nullptr && input_size_ != nullptr, "aclCreateIntArray failed");
}

void Runner::DestroyInputs() {
  // The executor keeps what it needs (section 2): destroying these before phase 2 is allowed.
  if (source_t_ != nullptr)
    FUZZ_CHECK(aclDestroyTensor(source_t_) == ACLNN_SUCCESS, "destroy source");
  if (out_t_ != nullptr) FUZZ_CHECK(aclDestroyTensor(out_t_) == ACLNN_SUCCESS, "destroy out");
  FUZZ_CHECK(aclDestroyIntArray(output_size_) == ACLNN_SUCCESS, "destroy outputSize");
  FUZZ_CHECK(aclDestroyIntArray(input_size_) == ACLNN_SUCCESS, "destroy inputSize");
  source_t_ = out_t_ = nullptr;
  output_size_ = input_size_ = nullptr;
}

bool AllowedStatus(aclnnStatus s) { return s == ACLNN_SUCCESS || s == kNullptr || s == kInvalid; }

aclnnStatus Runner::Phase1(uint64_t* ws, aclOpExecutor** executor) {
  PrimeErrorMessage();
  const std::string primed = aclGetRecentErrMsg();
  const aclnnStatus status = k_.op->get_workspace_size(
      k_.source.null_handle ? nullptr : source_t_, k_.null_output_size ? nullptr : output_size_,
      k_.null_input_size ? nullptr : input_size_, k_.align, k_.scales_h, k_.scales_w,
      k_.out.null_handle ? nullptr : out_t_, k_.null_ws_size ? nullptr : ws,
      k_.null_executor ? nullptr : executor);
  FUZZ_CHECK(AllowedStatus(status), "phase 1 status " + std::to_string(status));
  if (status != ACLNN_SUCCESS) {
    const std::string message = aclGetRecentErrMsg();
    FUZZ_CHECK(message.find(k_.op->name) != std::string::npos,
               "phase 1 failed without a message naming the operator: '" + message + "'");
  } else {
    FUZZ_CHECK(primed == aclGetRecentErrMsg(), "a successful phase 1 changed the error message");
  }
  return status;
}

aclnnStatus Runner::Phase2(const Operator& op, void* ws, uint64_t size, aclOpExecutor* executor) {
  PrimeErrorMessage();
  const std::string primed = aclGetRecentErrMsg();
  const aclnnStatus status = op.run(ws, size, executor, stream_);
  FUZZ_CHECK(AllowedStatus(status), "phase 2 status " + std::to_string(status));
  if (status != ACLNN_SUCCESS) {
    const std::string message = aclGetRecentErrMsg();
    FUZZ_CHECK(message.find(op.name) != std::string::npos,
               "phase 2 failed without a message naming the operator: '" + message + "'");
  } else {
    FUZZ_CHECK(primed == aclGetRecentErrMsg(), "a successful phase 2 changed the error message");
  }
  return status;
}

void Runner::RequireUnchanged(const char* when) {
  FUZZ_CHECK(std::memcmp(source_buf_.data(), source_before_.data(), source_buf_.size) == 0,
             std::string("storage written ") + when);
  if (!k_.shared_buffer) {
    FUZZ_CHECK(std::memcmp(out_buf_.data(), out_before_.data(), out_buf_.size) == 0,
               std::string("out storage written ") + when);
  }
}

// After a successful phase 2: nothing outside out's view changed, and the numbers are right.
void Runner::Verify(const char* when) {
  if (!k_.shared_buffer) {
    FUZZ_CHECK(std::memcmp(source_buf_.data(), source_before_.data(), source_buf_.size) == 0,
               std::string(k_.source.name) + " storage written " + when);
  }
  const Buffer& out = OutBuffer();
  const std::vector<uint8_t>& before = OutBefore();
  const size_t elem = ElemBytes(k_.out.elem());
  std::vector<bool> in_view(out.size / elem, false);
  ForEachResultElement([&](int64_t byte) { in_view[byte / elem] = true; });
  for (size_t i = 0; i < in_view.size(); ++i) {
    if (in_view[i]) continue;
    FUZZ_CHECK(std::memcmp(out.data() + i * elem, before.data() + i * elem, elem) == 0,
               std::string("storage element ") + std::to_string(i) +
                   " outside out's view written " + when);
  }
  VerifyNumbers(when);
}

void Runner::VerifyNumbers(const char* when) {
  if (k_.out.Empty()) return;
  const bool forward = IsForward(*k_.op);
  const fuzz_ref::AxisParams axis_h = AxisOf(*k_.op, k_.h_in, k_.h_out, k_.align, k_.scales_h);
  const fuzz_ref::AxisParams axis_w = AxisOf(*k_.op, k_.w_in, k_.w_out, k_.align, k_.scales_w);
  if (!fuzz_ref::IsWellDefined(axis_h) || !fuzz_ref::IsWellDefined(axis_w)) return;
  // Rows whose weights float64 itself cannot pin down (reference.h); reached only by bicubic
  // scales that put a centre outside the image.
  if (!fuzz_ref::RowsWellConditioned(axis_h) || !fuzz_ref::RowsWellConditioned(axis_w)) return;
  const Elem e = k_.out.elem();
  const int64_t planes = k_.n * k_.c;
  const int64_t src_h = k_.SourceH(), src_w = k_.SourceW();
  const int64_t res_h = k_.ResultH(), res_w = k_.ResultW();
  const uint8_t* source = source_buf_.data();
  const uint8_t* out = OutBuffer().data();
  auto source_at = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return Decode(e, source + ElementByte(k_.source, nhwc_, n, c, h, w));
  };
  auto out_at = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return Decode(e, out + ElementByte(k_.out, nhwc_, n, c, h, w));
  };
  const double dense_work =
      static_cast<double>(planes) *
      (static_cast<double>(src_h) * src_w * res_w + static_cast<double>(res_h) * src_h * res_w);
  const bool small = planes * src_h * src_w <= kReferenceElements &&
                     planes * res_h * res_w <= kReferenceElements && dense_work <= kReferenceBudget;
  if (small) {
    // Each matrix as ApplyPlane takes it, source x result: A backward, A^T forward.
    auto applied = [&](const fuzz_ref::AxisParams& axis, const std::vector<double>& dense) {
      return forward ? fuzz_ref::Transposed(dense, axis.out_size, axis.in_size) : dense;
    };
    const std::vector<double> m_h = applied(axis_h, fuzz_ref::DenseMatrix(axis_h));
    const std::vector<double> m_w = applied(axis_w, fuzz_ref::DenseMatrix(axis_w));
    const std::vector<double> support_h = applied(axis_h, fuzz_ref::DenseSupport(axis_h));
    const std::vector<double> support_w = applied(axis_w, fuzz_ref::DenseSupport(axis_w));
    double max_a = 1.0;
    for (double v : m_h) max_a = std::max(max_a, std::fabs(v));
    for (double v : m_w) max_a = std::max(max_a, std::fabs(v));
    std::vector<double> g(src_h * src_w);
    for (int64_t n = 0; n < k_.n; ++n) {
      for (int64_t c = 0; c < k_.c; ++c) {
        bool finite = true;
        for (int64_t o = 0; o < src_h; ++o) {
          for (int64_t p = 0; p < src_w; ++p) {
            const double v = source_at(n, c, o, p);
            g[o * src_w + p] = v;
            finite = finite && std::isfinite(v);
          }
        }
        const std::string where =
            std::string(when) + ", plane n=" + std::to_string(n) + " c=" + std::to_string(c);
        if (!finite) {
          // NaN/Inf reach every element they contribute to through a non-zero weight.
          for (int64_t o = 0; o < src_h; ++o)
            for (int64_t p = 0; p < src_w; ++p) {
              if (std::isfinite(g[o * src_w + p])) continue;
              for (int64_t h = 0; h < res_h; ++h) {
                if (m_h[o * res_h + h] == 0.0) continue;
                for (int64_t w = 0; w < res_w; ++w) {
                  if (m_w[p * res_w + w] == 0.0) continue;
                  FUZZ_CHECK(!std::isfinite(out_at(n, c, h, w)),
                             "non-finite " + std::string(k_.source.name) + "(" + std::to_string(o) +
                                 "," + std::to_string(p) + ") lost in out(" + std::to_string(h) +
                                 "," + std::to_string(w) + ") " + where);
                }
              }
            }
          continue;
        }
        const fuzz_ref::PlaneResult ref =
            fuzz_ref::ApplyPlane(m_h, m_w, support_h, support_w, src_h, src_w, res_h, res_w, g);
        double max_m = 0.0;
        for (double m : ref.magnitude) max_m = std::max(max_m, m);
        // Nearest forward copies input elements: exactly, however large.
        const bool exact_copy = IsNearestForward(*k_.op);
        // Past this, float32 accumulation may overflow where float64 does not (in either pass
        // order: the contract leaves the order to the implementation).
        if (!exact_copy && (ref.max_intermediate >= 1e38 || max_m >= 1e38)) continue;
        for (int64_t h = 0; h < res_h; ++h) {
          for (int64_t w = 0; w < res_w; ++w) {
            const size_t i = h * res_w + w;
            const double r = ref.value[i], m = ref.magnitude[i];
            const double lib = out_at(n, c, h, w);
            // Contract 4: 1e-5 * m, plus one ulp of r for 16-bit outputs. Two terms besides, each
            // for something the contract's exact-arithmetic wording cannot cover:
            //  - float32's subnormal range. There a rounding errs by up to 2^-150 whatever the
            //    operands, and 1e-5 * m is below that once m < 2^-133, so even r rounded once
            //    could fail. Element i takes ref.terms[i] roundings (one per product of the first
            //    pass and one per row of the second, FMA or not: 2^-149 covers both an FMA's one
            //    rounding and a multiply and add's two), each scaled by at most max_a into the
            //    result; either pass order meets at most twice as many. Normal-range operations
            //    add far less than 1e-5 * m, so this term matters only for subnormal results.
            //  - weights that are 0 in exact arithmetic (the cubic kernel at |d| = 1 or 2, hit
            //    when (i - center + 0.5) * invscale rounds next to those points; bilinear's
            //    lambda at an integer source). Here and in the library they come out as float64
            //    noise of either sign, which m, built from this reference's weights, misses when
            //    this side gets exactly 0. Both sides evaluate the same d; the polynomials differ
            //    only in evaluation order, over terms at most 10 in magnitude, so an unnormalised
            //    tap differs by a few ulps of 10, below 1e-14; the row's division scales that by
            //    1 / |total|. An entry of A_H * A_W thus differs by at most 1e-14 * u_h * u_w,
            //    u = |A| + 1 / |total| (DenseSupport), and support_magnitude sums |g| * u_h * u_w
            //    over the entries: 1e-12 of it is a 100x margin. For an ordinary row (total near
            //    1, |A| <= 1) that is at most 4e-12 * |g| per entry, below the entry's own share of
            //    1e-5 * m wherever its weight product exceeds 1e-6.
            const double tol = 1e-5 * m + Ulp(e, r) + 0x1.0p-148 * max_a * ref.terms[i] +
                               1e-12 * ref.support_magnitude[i];
            const std::string detail = "out(" + std::to_string(h) + "," + std::to_string(w) +
                                       ") = " + Num(lib) + ", reference " + Num(r) + ", m " +
                                       Num(m) + ", tolerance " + Num(tol) + ", " + where;
            if (exact_copy) {
              FUZZ_CHECK(lib == r, "not a copy of the input element: " + detail);
            } else if (std::isinf(lib)) {
              // Only rounding past the dtype's largest finite value may give Inf.
              FUZZ_CHECK(std::fabs(r) + tol >= MaxFinite(e) && (lib > 0) == (r > 0), detail);
            } else {
              FUZZ_CHECK(std::fabs(lib - r) <= tol, detail);
            }
          }
        }
      }
    }
    return;
  }
  // No reference: with finite inputs small enough that nothing can overflow, no element may be
  // NaN (the sentinel included: every element must have been written) or Inf.
  if (static_cast<double>(planes) * src_h * src_w > 4.0 * kStorageCap) return;
  double max_g = 0.0;
  for (int64_t n = 0; n < k_.n; ++n)
    for (int64_t c = 0; c < k_.c; ++c)
      for (int64_t o = 0; o < src_h; ++o)
        for (int64_t p = 0; p < src_w; ++p) {
          const double v = source_at(n, c, o, p);
          if (!std::isfinite(v)) return;
          max_g = std::max(max_g, std::fabs(v));
        }
  // How much one value read can be amplified into one result element: A's column sums
  // backward, its row sums forward.
  auto amplification = [&](const fuzz_ref::AxisParams& axis) {
    const std::vector<double> sums =
        forward ? fuzz_ref::RowAbsSums(axis) : fuzz_ref::ColumnAbsSums(axis);
    return *std::max_element(sums.begin(), sums.end());
  };
  const double amp_h = amplification(axis_h);
  const double amp_w = amplification(axis_w);
  const double bound = max_g * amp_w * amp_h * 1.01;
  if (max_g * std::max(amp_w, amp_h) * 1.01 >= 1e38 || bound >= 1e38) return;
  for (int64_t n = 0; n < k_.n; ++n)
    for (int64_t c = 0; c < k_.c; ++c)
      for (int64_t h = 0; h < res_h; ++h)
        for (int64_t w = 0; w < res_w; ++w) {
          const double v = out_at(n, c, h, w);
          FUZZ_CHECK(!std::isnan(v), "NaN from finite inputs at out(" + std::to_string(n) + "," +
                                         std::to_string(c) + "," + std::to_string(h) + "," +
                                         std::to_string(w) + ") " + when);
          // Rounding to the output dtype may step one ulp past the bound.
          const double limit = bound + Ulp(e, bound) + 0x1.0p-140;
          if (bound < MaxFinite(e) * 0.99) {
            FUZZ_CHECK(std::fabs(v) <= limit, "out(" + std::to_string(h) + "," + std::to_string(w) +
                                                  ") = " + Num(v) + " beyond the bound " +
                                                  Num(bound) + " " + when);
          }
        }
}

double Runner::EstimatedWork() const {
  const double taps_h = static_cast<double>(
      fuzz_ref::CountEntries(AxisOf(*k_.op, k_.h_in, k_.h_out, k_.align, k_.scales_h)));
  const double taps_w = static_cast<double>(
      fuzz_ref::CountEntries(AxisOf(*k_.op, k_.w_in, k_.w_out, k_.align, k_.scales_w)));
  const double planes = static_cast<double>(k_.n) * static_cast<double>(k_.c);
  const double src_h = k_.SourceH(), src_w = k_.SourceW();
  const double res_h = k_.ResultH(), res_w = k_.ResultW();
  // W pass over every source row (twice: row bands may share rows), then the H pass.
  const double work = planes * (2.0 * src_h * (src_w + res_w + taps_w) + res_w * (taps_h + res_h));
  return work + static_cast<double>(k_.h_in + k_.h_out + k_.w_in + k_.w_out);
}

void Runner::RequireSuccessfulRun(const char* when) { Verify(when); }

// Phase 2, with the misuse the input asks for; the executor is valid and phase 1 succeeded.
void Runner::ExecuteValid(uint64_t ws_size, aclOpExecutor* executor) {
  auto workspace = [](uint64_t bytes) {
    return std::unique_ptr<uint8_t[]>(bytes > 0 ? new uint8_t[bytes] : nullptr);
  };
  const Operator& other = OtherOperator(*k_.op);
  uint8_t mode = k_.phase2_mode;
  if (EstimatedWork() > kWorkBudget) mode = 8;  // too slow to run: exercise destroy instead
  if ((mode == 1 || mode == 2) && ws_size == 0) mode = 0;
  auto run_ok = [&](aclOpExecutor* handle, const char* when) {
    std::unique_ptr<uint8_t[]> ws = workspace(ws_size);
    FUZZ_CHECK(Phase2(*k_.op, ws.get(), ws_size, handle) == ACLNN_SUCCESS,
               std::string("phase 2 failed ") + when);
    RequireSuccessfulRun(when);
  };
  auto consumed = [&](aclOpExecutor* handle, const char* when) {
    std::unique_ptr<uint8_t[]> ws = workspace(ws_size);
    FUZZ_CHECK(Phase2(*k_.op, ws.get(), ws_size, handle) == kInvalid,
               std::string("a consumed executor was accepted ") + when);
  };
  switch (mode) {
    case 1: {  // workspace one byte short
      std::unique_ptr<uint8_t[]> ws = workspace(ws_size - 1);
      FUZZ_CHECK(Phase2(*k_.op, ws.get(), ws_size - 1, executor) == kInvalid, "short workspace");
      RequireUnchanged("by a phase 2 with a short workspace");
      consumed(executor, "after a failed phase 2");
      RequireUnchanged("by a phase 2 with a consumed executor");
      break;
    }
    case 2:  // null workspace with a size
      FUZZ_CHECK(Phase2(*k_.op, nullptr, ws_size, executor) == kInvalid, "null workspace");
      RequireUnchanged("by a phase 2 with a null workspace");
      consumed(executor, "after a failed phase 2");
      break;
    case 3:  // null executor, then the real one
      FUZZ_CHECK(Phase2(*k_.op, nullptr, 0, nullptr) == kNullptr, "null executor");
      RequireUnchanged("by a phase 2 with a null executor");
      run_ok(executor, "after a null-executor call");
      break;
    case 4: {  // handles that were never made: rejected, never dereferenced
      static uint64_t stack_like = 0;
      aclOpExecutor* fakes[] = {
          reinterpret_cast<aclOpExecutor*>(&stack_like),
          reinterpret_cast<aclOpExecutor*>(uintptr_t{1}),
          reinterpret_cast<aclOpExecutor*>(~uintptr_t{0}),
          reinterpret_cast<aclOpExecutor*>(reinterpret_cast<uintptr_t>(executor) + 1)};
      for (aclOpExecutor* fake : fakes) {
        FUZZ_CHECK(Phase2(*k_.op, nullptr, 0, fake) == kInvalid, "unknown executor accepted");
        FUZZ_CHECK(aclDestroyAclOpExecutor(fake) == kInvalid, "unknown executor destroyed");
        FUZZ_CHECK(aclSetAclOpExecutorRepeatable(fake) == kInvalid,
                   "unknown executor made repeatable");
      }
      RequireUnchanged("by calls with unknown executors");
      run_ok(executor, "after unknown-executor calls");
      break;
    }
    case 5: {  // another operator's phase 2 (the next row: the other direction or mode)
      std::unique_ptr<uint8_t[]> ws = workspace(ws_size);
      FUZZ_CHECK(Phase2(other, ws.get(), ws_size, executor) == kInvalid,
                 "another operator's executor accepted");
      RequireUnchanged("by the other operator's phase 2");
      (void)aclDestroyAclOpExecutor(executor);  // consumed or not: the contract leaves it open
      break;
    }
    case 6: {  // repeatable: bitwise equal runs until destroyed
      FUZZ_CHECK(aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS, "set repeatable");
      run_ok(executor, "in repeatable run 1");
      const std::vector<uint8_t> first = Snapshot(OutBuffer());
      std::memcpy(OutBuffer().data(), OutBefore().data(), OutBuffer().size);  // sentinel again
      run_ok(executor, "in repeatable run 2");
      FUZZ_CHECK(Snapshot(OutBuffer()) == first, "repeatable run 2 differs from run 1");
      run_ok(executor, "in repeatable run 3 (over the old result)");
      FUZZ_CHECK(Snapshot(OutBuffer()) == first, "repeatable run 3 differs from run 1");
      FUZZ_CHECK(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "destroy repeatable");
      const std::vector<uint8_t> kept = Snapshot(OutBuffer());
      consumed(executor, "after destroying a repeatable executor");
      FUZZ_CHECK(Snapshot(OutBuffer()) == kept, "a destroyed executor wrote");
      FUZZ_CHECK(aclDestroyAclOpExecutor(executor) == kInvalid, "double destroy accepted");
      break;
    }
    case 7: {  // single use, run twice
      run_ok(executor, "in single-use run 1");
      const std::vector<uint8_t> kept = Snapshot(OutBuffer());
      consumed(executor, "second run of a single-use executor");
      FUZZ_CHECK(Snapshot(OutBuffer()) == kept, "a consumed executor wrote");
      FUZZ_CHECK(aclDestroyAclOpExecutor(executor) == kInvalid, "destroying a consumed executor");
      break;
    }
    case 8:  // destroyed before phase 2
      FUZZ_CHECK(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, "destroy before phase 2");
      consumed(executor, "after aclDestroyAclOpExecutor");
      RequireUnchanged("by a destroyed executor");
      break;
    case 9: {  // a workspace larger than asked for
      std::unique_ptr<uint8_t[]> ws(new uint8_t[ws_size + 64]);
      FUZZ_CHECK(Phase2(*k_.op, ws.get(), ws_size + 64, executor) == ACLNN_SUCCESS,
                 "oversized workspace");
      RequireSuccessfulRun("with an oversized workspace");
      break;
    }
    case 10: {  // the same call planned for another thread count: bitwise equal
      run_ok(executor, "before the thread-count rerun");
      const std::vector<uint8_t> first = Snapshot(OutBuffer());
      std::memcpy(OutBuffer().data(), OutBefore().data(), OutBuffer().size);
      if (source_t_ == nullptr) CreateHandles();
      SetThreads(k_.threads == 1 ? 3 : 1);
      uint64_t size2 = 0;
      aclOpExecutor* second = nullptr;
      FUZZ_CHECK(Phase1(&size2, &second) == ACLNN_SUCCESS, "phase 1 rerun failed");
      std::unique_ptr<uint8_t[]> ws = workspace(size2);
      FUZZ_CHECK(Phase2(*k_.op, ws.get(), size2, second) == ACLNN_SUCCESS, "phase 2 rerun failed");
      FUZZ_CHECK(Snapshot(OutBuffer()) == first, "results differ between thread counts " +
                                                     std::to_string(k_.threads) + " and " +
                                                     std::to_string(k_.threads == 1 ? 3 : 1));
      break;
    }
    default:
      run_ok(executor, "in a plain run");
      break;
  }
}

void Runner::Run() {
  g_case = k_.Describe();
  // For reading a sanitizer report: which case the crashing input is.
  static const bool verbose = std::getenv("ACLNN_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "case: %s\n", g_case.c_str());
  stream_ = k_.use_stream ? g_stream : nullptr;
  const Expectation expected = Expect(k_);
  if (expected.valid) {
    // Mutations may have made another valid problem than the one read (a forward source's H
    // grown by one, say): the results are checked against the call as made.
    k_.n = expected.n, k_.c = expected.c, k_.h_in = expected.h_in, k_.w_in = expected.w_in;
    k_.h_out = expected.h_out, k_.w_out = expected.w_out;
  }
  Prepare(expected);
  CreateHandles();
  SetThreads(k_.threads);
  if ((expected.valid || !expected.decided) && expected.plan_entries > kPlanEntryBudget) {
    if (verbose) std::fprintf(stderr, "not called: %.3g matrix entries\n", expected.plan_entries);
    DestroyInputs();
    return;
  }
  executors_before_ = aclnn_upsample::LiveExecutorCount();

  uint64_t ws_size = ~uint64_t{0};
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = Phase1(&ws_size, &executor);
  if (verbose) std::fprintf(stderr, "phase 1: %d %s\n", status, aclGetRecentErrMsg());
  if (expected.decided) {
    if (expected.valid) {
      FUZZ_CHECK(status == ACLNN_SUCCESS,
                 "a valid call was rejected with " + std::to_string(status));
    } else if (expected.null_handle) {
      FUZZ_CHECK(status == kNullptr, "null handle: expected 161001, got " + std::to_string(status) +
                                         " (" + expected.reason + ")");
    } else if (expected.null_data) {
      FUZZ_CHECK(status == kNullptr || status == kInvalid,
                 "null data: expected a rejection, got " + std::to_string(status));
    } else {
      FUZZ_CHECK(status == kInvalid,
                 "expected 161002 (" + expected.reason + "), got " + std::to_string(status));
    }
  }
  if (status != ACLNN_SUCCESS) {
    RequireUnchanged("by a failed phase 1");
    FUZZ_CHECK(aclnn_upsample::LiveExecutorCount() == executors_before_,
               "a failed phase 1 left an executor");
  } else {
    FUZZ_CHECK(executor != nullptr, "phase 1 succeeded without an executor");
    FUZZ_CHECK(aclnn_upsample::LiveExecutorCount() == executors_before_ + 1,
               "phase 1 did not register exactly one executor");
    RequireUnchanged("by phase 1");
    if (k_.destroy_inputs_early && k_.phase2_mode != 10) DestroyInputs();
    ExecuteValid(ws_size, executor);
    FUZZ_CHECK(aclnn_upsample::LiveExecutorCount() == executors_before_,
               "an executor outlived its use (mode " + std::to_string(k_.phase2_mode) + ")");
  }
  if (source_t_ != nullptr || output_size_ != nullptr) DestroyInputs();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Every row is fuzzed, so the reference must model every row's mode.
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator& op = *aclnn_upsample_operator_at(i);
    fuzz_ref::Kind kind;
    if (!ReferenceKind(op, &kind)) {
      std::fprintf(stderr,
                   "fuzz_api: no reference formulas for %s (mode '%s'): add them to "
                   "fuzz/reference.cc and to ReferenceKind\n",
                   op.name, op.mode);
      std::abort();
    }
  }
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtCreateStream(&g_stream);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Runner runner(ReadCase(data, size));
  runner.Run();
  return 0;
}
