#include "support/test_tensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <utility>

#include "support/half_reference.h"

namespace support {
namespace {

size_t ElementSize(aclDataType dtype) {
  return dtype == ACL_FLOAT16 || dtype == ACL_BF16 ? 2 : dtype == ACL_DOUBLE ? 8 : 4;
}

// See Invocation: real memory backs at most this many elements of a tensor.
constexpr int64_t kMaxBackedElements = int64_t{1} << 22;
constexpr uint8_t kInvocationSentinel = 0xA5;

std::vector<int64_t> InFormat(aclFormat format, int64_t n, int64_t c, int64_t h, int64_t w) {
  return format == ACL_FORMAT_NHWC ? std::vector<int64_t>{n, h, w, c}
                                   : std::vector<int64_t>{n, c, h, w};
}

aclTensor* MakeTensor(const TensorSpec& spec, void* data) {
  const std::vector<int64_t>& storage = spec.storage.empty() ? spec.dims : spec.storage;
  return aclCreateTensor(spec.dims.data(), spec.dims.size(), spec.dtype,
                         spec.strides.empty() ? nullptr : spec.strides.data(), spec.offset,
                         spec.format, storage.data(), storage.size(), data);
}

// The test's own conversions (not the library's): arithmetic for IEEE half, bit arithmetic for
// bfloat16.
uint16_t ToBFloat16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t lower = u & 0xFFFF, upper = u >> 16;
  uint32_t rounded = upper;
  if (lower > 0x8000 || (lower == 0x8000 && (upper & 1))) ++rounded;
  return static_cast<uint16_t>(rounded);
}

void Encode(aclDataType dtype, double value, uint8_t* out) {
  if (dtype == ACL_FLOAT) {
    const float f = static_cast<float>(value);
    std::memcpy(out, &f, 4);
  } else if (dtype == ACL_FLOAT16) {
    // Straight from double: going through float could round twice.
    const uint16_t h = half_reference::FromDouble(value);
    std::memcpy(out, &h, 2);
  } else {
    const uint16_t b = ToBFloat16Bits(static_cast<float>(value));
    std::memcpy(out, &b, 2);
  }
}

double Decode(aclDataType dtype, const uint8_t* in) {
  if (dtype == ACL_FLOAT) {
    float f;
    std::memcpy(&f, in, 4);
    return f;
  }
  if (dtype == ACL_FLOAT16) {
    uint16_t h;
    std::memcpy(&h, in, 2);
    return half_reference::ToDouble(h);
  }
  uint16_t b;
  std::memcpy(&b, in, 2);
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Strides (elements) and storage size for a logical (N, C, H, W) tensor.
struct Layout {
  std::vector<int64_t> view_dims, strides, storage_dims;
  int64_t offset = 0;
  int64_t storage_elements = 0;
  // Element offset of logical (n, c, h, w).
  std::vector<int64_t> logical_strides;  // for n, c, h, w
};

Layout MakeLayout(const int64_t (&nchw)[4], aclFormat format, Storage storage, bool is_source) {
  const int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const bool nhwc = format == ACL_FORMAT_NHWC;
  Layout layout;
  layout.view_dims = nhwc ? std::vector<int64_t>{n, h, w, c} : std::vector<int64_t>{n, c, h, w};
  // Strides as if every zero dimension were 1, as PyTorch computes them for empty tensors: an
  // empty view still gets real storage (see below).
  std::vector<int64_t> sizes = layout.view_dims;
  for (int64_t& size : sizes) size = std::max<int64_t>(size, 1);
  int64_t pad = 0;
  if (storage == Storage::kPaddedRows) pad = 3;
  // Row-major strides over the view dims, with the innermost row padded.
  std::vector<int64_t> strides(4);
  strides[3] = 1;
  strides[2] = sizes[3] + pad;
  strides[1] = strides[2] * sizes[2];
  strides[0] = strides[1] * sizes[1];
  if (storage == Storage::kChannelsLastView && !nhwc) {
    strides = {sizes[2] * sizes[3] * sizes[1], 1, sizes[3] * sizes[1], sizes[1]};
  }
  if (storage == Storage::kBroadcastGrad && is_source) {
    strides[0] = 0;
    strides[nhwc ? 3 : 1] = 0;
    if (!nhwc) {
      strides[2] = sizes[3];
      strides[3] = 1;
    } else {
      strides[1] = sizes[2];
      strides[2] = 1;
    }
  }
  if (storage == Storage::kHugeUnitStrides) {
    for (int d = 0; d < 4; ++d) {
      if (layout.view_dims[d] == 1) strides[d] = int64_t{1} << 62;
    }
  }
  layout.strides = strides;
  layout.offset = storage == Storage::kOffset ? 7 : 0;
  // An empty view still gets the storage it would have with its zero dimensions at 1: sentinel
  // memory where a library that forgets the view is empty would write.
  int64_t last = 0;
  for (int d = 0; d < 4; ++d) last += (sizes[d] - 1) * strides[d];
  layout.storage_elements = layout.offset + last + 1 + (storage == Storage::kOffset ? 5 : 0);
  layout.storage_dims = {layout.storage_elements};
  layout.logical_strides =
      nhwc ? std::vector<int64_t>{strides[0], strides[3], strides[1], strides[2]} : strides;
  return layout;
}

// The one input index of each output row of a nearest-neighbour matrix.
std::vector<int64_t> SingleTaps(const reference::Matrix& m) {
  std::vector<int64_t> from(m.rows, -1);
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t col = 0; col < m.cols; ++col) {
      if (!m.tap(r, col)) continue;
      EXPECT_EQ(from[r], -1) << "row " << r << " has more than one tap";
      from[r] = col;
    }
  }
  return from;
}

int64_t LogicalOffset(const Layout& layout, int64_t n, int64_t c, int64_t h, int64_t w) {
  return layout.offset + n * layout.logical_strides[0] + c * layout.logical_strides[1] +
         h * layout.logical_strides[2] + w * layout.logical_strides[3];
}

}  // namespace

double RoundTo(aclDataType dtype, double value) {
  uint8_t bytes[4];
  Encode(dtype, value, bytes);
  return Decode(dtype, bytes);
}

double UlpOf(aclDataType dtype, double value) {
  const int mantissa_bits = dtype == ACL_FLOAT ? 23 : dtype == ACL_FLOAT16 ? 10 : 7;
  const int min_exponent = dtype == ACL_FLOAT16 ? -14 : -126;
  const double magnitude = std::abs(value);
  int exponent = magnitude > 0 ? std::ilogb(magnitude) : min_exponent;
  exponent = std::max(exponent, min_exponent);
  return std::ldexp(1.0, exponent - mantissa_bits);
}

std::vector<double> RandomValues(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> values(count);
  for (double& v : values) v = normal(rng);
  return values;
}

RunOutput Run(const reference::Case& c, const std::vector<double>& grad, const RunOptions& options,
              std::vector<double>* grad_rounded) {
  const aclnn_upsample_operator* op = FindOperator(c.op, ACLNN_UPSAMPLE_BACKWARD);
  if (op == nullptr) return RunOutput{};
  return RunOperator(*op, c, grad, options, grad_rounded);
}

RunOutput RunOperator(const aclnn_upsample_operator& op, const reference::Case& c,
                      const std::vector<double>& source, const RunOptions& options,
                      std::vector<double>* source_rounded) {
  const size_t elem = ElementSize(options.dtype);
  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const int64_t small[4] = {c.n, c.c, c.in_h, c.in_w};
  const int64_t large[4] = {c.n, c.c, c.out_h, c.out_w};
  const int64_t(&source_shape)[4] = forward ? small : large;
  const int64_t(&result_shape)[4] = forward ? large : small;
  const Layout source_layout = MakeLayout(source_shape, options.format, options.storage, true);
  const Layout out_layout = MakeLayout(
      result_shape, options.format,
      options.storage == Storage::kBroadcastGrad ? Storage::kContiguous : options.storage, false);

  std::vector<uint8_t> source_storage(std::max<int64_t>(source_layout.storage_elements, 1) * elem,
                                      0);
  const int64_t source_h = source_shape[2], source_w = source_shape[3];
  if (source_rounded) source_rounded->assign(source.size(), 0.0);
  std::vector<uint8_t> source_bits(c.n * c.c * source_h * source_w * elem);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t ch = 0; ch < c.c; ++ch) {
      for (int64_t h = 0; h < source_h; ++h) {
        for (int64_t w = 0; w < source_w; ++w) {
          const int64_t logical = ((n * c.c + ch) * source_h + h) * source_w + w;
          // Broadcast: every plane reads plane 0's values.
          const int64_t from =
              options.storage == Storage::kBroadcastGrad ? h * source_w + w : logical;
          uint8_t* slot = source_storage.data() + LogicalOffset(source_layout, n, ch, h, w) * elem;
          Encode(options.dtype, source[from], slot);
          std::memcpy(source_bits.data() + logical * elem, slot, elem);
          if (source_rounded) (*source_rounded)[logical] = Decode(options.dtype, slot);
        }
      }
    }
  }
  constexpr uint8_t kSentinel = 0x5A;
  std::vector<uint8_t> out_storage(std::max<int64_t>(out_layout.storage_elements, 1) * elem,
                                   kSentinel);

  if (options.threads > 0) {
    setenv("ACLNN_UPSAMPLE_NUM_THREADS", std::to_string(options.threads).c_str(), 1);
  }
  aclTensor* source_tensor =
      aclCreateTensor(source_layout.view_dims.data(), 4, options.dtype,
                      source_layout.strides.data(), source_layout.offset, options.format,
                      source_layout.storage_dims.data(), 1, source_storage.data());
  aclTensor* out_tensor = aclCreateTensor(
      out_layout.view_dims.data(), 4, options.dtype, out_layout.strides.data(), out_layout.offset,
      options.format, out_layout.storage_dims.data(), 1, out_storage.data());
  const int64_t output_size[2] = {c.out_h, c.out_w};
  aclIntArray* output_array = aclCreateIntArray(output_size, 2);
  // A forward signature has no inputSize: pass none, as a CANN caller would.
  aclIntArray* input_array = forward ? nullptr : aclCreateIntArray(out_layout.view_dims.data(), 4);

  RunOutput run;
  run.source_bits = std::move(source_bits);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  run.status =
      op.get_workspace_size(source_tensor, output_array, input_array, c.align_corners, c.scales_h,
                            c.scales_w, out_tensor, &workspace_size, &executor);
  // The executor keeps what it needs: destroy the descriptions before phase 2.
  aclDestroyTensor(source_tensor);
  aclDestroyTensor(out_tensor);
  aclDestroyIntArray(output_array);
  if (input_array != nullptr) aclDestroyIntArray(input_array);
  if (options.threads > 0) unsetenv("ACLNN_UPSAMPLE_NUM_THREADS");
  if (run.status == ACLNN_SUCCESS) {
    void* workspace = nullptr;
    if (workspace_size > 0)
      EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    run.status = op.run(workspace, workspace_size, executor, nullptr);
    if (workspace) aclrtFree(workspace);
  }
  if (run.status != ACLNN_SUCCESS) run.message = aclGetRecentErrMsg();

  const int64_t result_h = result_shape[2], result_w = result_shape[3];
  const int64_t result_elements = c.n * c.c * result_h * result_w;
  std::vector<bool> addressed(out_layout.storage_elements, false);
  run.values.resize(result_elements);
  run.raw_bits.resize(result_elements * elem);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t ch = 0; ch < c.c; ++ch) {
      for (int64_t h = 0; h < result_h; ++h) {
        for (int64_t w = 0; w < result_w; ++w) {
          const int64_t logical = ((n * c.c + ch) * result_h + h) * result_w + w;
          const int64_t offset = LogicalOffset(out_layout, n, ch, h, w);
          addressed[offset] = true;
          run.values[logical] = Decode(options.dtype, out_storage.data() + offset * elem);
          std::memcpy(run.raw_bits.data() + logical * elem, out_storage.data() + offset * elem,
                      elem);
        }
      }
    }
  }
  for (int64_t e = 0; e < out_layout.storage_elements; ++e) {
    if (addressed[e] && run.status == ACLNN_SUCCESS) continue;
    for (size_t b = 0; b < elem; ++b) {
      if (out_storage[e * elem + b] != kSentinel) run.outside_view_untouched = false;
    }
  }
  return run;
}

RunOutput ExpectMatchesReference(const aclnn_upsample_operator& op, const reference::Case& c,
                                 const std::vector<double>& source, const RunOptions& options,
                                 const std::string& label, std::vector<double>* expected) {
  std::vector<double> seen, result, magnitude;
  RunOutput run = RunOperator(op, c, source, options, &seen);
  if (expected) expected->clear();
  EXPECT_EQ(run.status, ACLNN_SUCCESS) << label << ": " << run.message;
  if (run.status != ACLNN_SUCCESS) return run;
  const reference::Case computed = ForRow(op, c);
  if (op.direction == ACLNN_UPSAMPLE_FORWARD) {
    reference::Forward(computed, seen, &result, &magnitude);
    if (reference::IsNearest(computed.op)) {
      EXPECT_EQ(CountInexactCopies(op, c, run, options.dtype, label), 0);
    }
  } else {
    reference::Backward(computed, seen, &result, &magnitude);
  }
  EXPECT_EQ(CountOutOfTolerance(options.dtype, run.values, result, magnitude, label), 0);
  EXPECT_TRUE(run.outside_view_untouched) << label << ": wrote outside out's view";
  if (expected) *expected = std::move(result);
  return run;
}

reference::Case RowCase(const aclnn_upsample_operator& op, int64_t in_h, int64_t in_w,
                        int64_t out_h, int64_t out_w, bool align, double scales_h, double scales_w,
                        int64_t n, int64_t c) {
  return reference::MakeResizeCase(ModeOf(op), in_h, in_w, out_h, out_w, align, scales_h, scales_w,
                                   n, c);
}

std::string Describe(const aclnn_upsample_operator& op, const reference::Case& c,
                     const RunOptions& options) {
  return std::string(op.name) + " " + c.Name() + " dtype " + std::to_string(options.dtype) +
         " format " + std::to_string(options.format) + " storage " +
         std::to_string(static_cast<int>(options.storage));
}

bool WithinUpscaleLimit(const aclnn_upsample_operator& op, const reference::Case& c) {
  if (op.max_upscale <= 0) return true;
  return double(c.in_h) * op.max_upscale >= double(c.out_h) &&
         double(c.in_w) * op.max_upscale >= double(c.out_w);
}

void ExpectMatchesOnRandomData(const aclnn_upsample_operator& op, const reference::Case& c,
                               const RunOptions& options, uint32_t seed) {
  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const std::string label = Describe(op, c, options);
  const RunOutput run = ExpectMatchesReference(
      op, c, RandomValues(forward ? c.result_elements() : c.grad_elements(), seed), options, label);
  const auto non_finite = std::count_if(run.values.begin(), run.values.end(),
                                        [](double v) { return !std::isfinite(v); });
  EXPECT_EQ(non_finite, 0) << label << ": finite data gave non-finite results";
}

std::vector<std::vector<uint8_t>> RunAtThreadCounts(const aclnn_upsample_operator& op,
                                                    const reference::Case& c,
                                                    const std::vector<double>& source,
                                                    RunOptions options,
                                                    const std::vector<int>& thread_counts) {
  std::vector<std::vector<uint8_t>> results;
  for (int threads : thread_counts) {
    options.threads = threads;
    RunOutput run = RunOperator(op, c, source, options);
    EXPECT_EQ(run.status, ACLNN_SUCCESS)
        << op.name << " " << c.Name() << " at " << threads << " threads: " << run.message;
    results.push_back(run.status == ACLNN_SUCCESS ? std::move(run.raw_bits)
                                                  : std::vector<uint8_t>{});
  }
  return results;
}

const aclnn_upsample_operator* FindOperator(reference::Op mode,
                                            aclnn_upsample_direction direction) {
  for (const aclnn_upsample_operator* op : OperatorsOf(direction)) {
    if (ModeOf(*op) == mode) return op;
  }
  ADD_FAILURE() << "no operator of mode " << static_cast<int>(mode) << " and direction "
                << direction << " in the table";
  return nullptr;
}

reference::Op ModeOf(const aclnn_upsample_operator& op) {
  reference::Op mode = reference::Op::kBilinear;
  EXPECT_TRUE(reference::OpFromMode(op.mode, &mode)) << op.name << ": unknown mode " << op.mode;
  return mode;
}

reference::Case ForRow(const aclnn_upsample_operator& op, reference::Case c) {
  c.op = ModeOf(op);
  c.scale_rule = op.scales_need_consistent_size ? reference::ScaleRule::kConsistentSize
                                                : reference::ScaleRule::kAsGiven;
  if (!op.takes_align_corners) c.align_corners = false;
  if (!op.takes_scales) c.scales_h = c.scales_w = 0.0;
  return c;
}

int CountInexactCopies(const aclnn_upsample_operator& op, const reference::Case& c,
                       const RunOutput& run, aclDataType dtype, const std::string& label) {
  const reference::Case computed = ForRow(op, c);
  const size_t elem = ElementSize(dtype);
  const std::vector<int64_t> from_h = SingleTaps(reference::CaseAxisMatrix(computed, true));
  const std::vector<int64_t> from_w = SingleTaps(reference::CaseAxisMatrix(computed, false));
  int failures = 0;
  for (int64_t p = 0; p < c.n * c.c; ++p) {
    for (int64_t oh = 0; oh < c.out_h; ++oh) {
      for (int64_t ow = 0; ow < c.out_w; ++ow) {
        const int64_t o = (p * c.out_h + oh) * c.out_w + ow;
        const int64_t i = (p * c.in_h + from_h[oh]) * c.in_w + from_w[ow];
        if (std::memcmp(run.raw_bits.data() + o * elem, run.source_bits.data() + i * elem, elem) ==
            0) {
          continue;
        }
        if (++failures <= 3) {
          ADD_FAILURE() << label << ": element " << o << " is " << run.values[o]
                        << ", not a copy of source element " << i << " (bits differ)";
        }
      }
    }
  }
  return failures;
}

bool ExpectReadsScaleByItsFlags(const aclnn_upsample_operator& op, int64_t in, int64_t out,
                                bool align, double scale, bool on_h, const RunOptions& options,
                                int64_t channels) {
  const reference::Op mode = ModeOf(op);
  const reference::Case c =
      on_h ? reference::MakeResizeCase(mode, in, 5, out, 9, align, scale, 0, 1, channels)
           : reference::MakeResizeCase(mode, 5, in, 9, out, align, 0, scale, 1, channels);
  const reference::Case computed = ForRow(op, c);
  // The reading the row's flags prescribe, stated here rather than taken from the reference.
  const bool aligned = align && op.takes_align_corners;
  bool uses_scale = op.takes_scales && !aligned && scale > 0;
  if (uses_scale && op.scales_need_consistent_size) {
    uses_scale = double(out) == std::floor(double(in) * scale) && 1 / scale >= 0.01;
  }
  const double by_scale = reference::Ratio(mode, in, out, false, std::abs(scale));
  const double by_sizes = reference::Ratio(mode, in, out, aligned, 0);
  const double expected_ratio = uses_scale ? by_scale : by_sizes;
  const double broken_ratio = uses_scale ? by_sizes : by_scale;
  const std::string label = std::string(op.name) + " " + c.Name();
  EXPECT_EQ(reference::Ratio(mode, in, out, computed.align_corners,
                             reference::UsedScale(computed, in, out,
                                                  on_h ? computed.scales_h : computed.scales_w)),
            expected_ratio)
      << label << ": the reference reads the scale differently";

  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const std::vector<double> source =
      RandomValues(forward ? c.result_elements() : c.grad_elements(), 17);
  std::vector<double> seen;
  const RunOutput run = RunOperator(op, c, source, options, &seen);
  EXPECT_EQ(run.status, ACLNN_SUCCESS) << label << ": " << run.message;
  if (run.status != ACLNN_SUCCESS) return true;
  auto result_with = [&](double ratio, std::vector<double>* result, std::vector<double>* m) {
    const reference::Matrix tested =
        reference::AxisMatrixForRatio(mode, in, out, computed.align_corners, ratio);
    const reference::Matrix other = reference::AxisMatrix(mode, 5, 9, computed.align_corners, 0);
    const reference::Matrix& ah = on_h ? tested : other;
    const reference::Matrix& aw = on_h ? other : tested;
    if (forward) {
      reference::ForwardWith(computed, ah, aw, seen, result, m);
    } else {
      reference::BackwardWith(computed, ah, aw, seen, result, m);
    }
  };
  std::vector<double> expected, magnitude, broken, broken_magnitude;
  result_with(expected_ratio, &expected, &magnitude);
  result_with(broken_ratio, &broken, &broken_magnitude);
  int distinguishable = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    distinguishable += !WithinTolerance(options.dtype, broken[i], expected[i], magnitude[i]);
  }
  if (distinguishable == 0) return false;
  EXPECT_EQ(CountOutOfTolerance(options.dtype, run.values, expected, magnitude, label), 0);
  EXPECT_TRUE(run.outside_view_untouched) << label;
  return true;
}

std::vector<const aclnn_upsample_operator*> OperatorsOf(aclnn_upsample_direction direction) {
  std::vector<const aclnn_upsample_operator*> rows;
  for (size_t i = 0; i < aclnn_upsample_operator_count(); ++i) {
    const aclnn_upsample_operator* op = aclnn_upsample_operator_at(i);
    if (op->direction == direction) rows.push_back(op);
  }
  return rows;
}

double Tolerance(aclDataType dtype, double expected, double magnitude) {
  const double ulp = dtype == ACL_FLOAT ? 0.0 : UlpOf(dtype, expected);
  return ulp + 1e-5 * magnitude;
}

bool WithinTolerance(aclDataType dtype, double actual, double expected, double magnitude) {
  // Non-finite results are classes, not values: a tolerance derived from an Inf is Inf and
  // would accept anything.
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  if (std::isnan(actual)) return false;
  const double tolerance = Tolerance(dtype, expected, magnitude);
  if (std::isinf(actual)) {
    // Rounding a value within the tolerance may overflow the dtype (float16 beyond 65504).
    return RoundTo(dtype, expected + std::copysign(tolerance, actual)) == actual;
  }
  return std::abs(actual - expected) <= tolerance;
}

int CountOutOfTolerance(aclDataType dtype, const std::vector<double>& actual,
                        const std::vector<double>& expected, const std::vector<double>& magnitude,
                        const std::string& label) {
  int failures = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (WithinTolerance(dtype, actual[i], expected[i], magnitude[i])) continue;
    if (++failures <= 3) {
      std::ostringstream wanted;
      wanted << expected[i];
      if (std::isfinite(expected[i]))
        wanted << " +- " << Tolerance(dtype, expected[i], magnitude[i]);
      ADD_FAILURE() << label << ": element " << i << " is " << actual[i] << ", expected "
                    << wanted.str();
    }
  }
  return failures;
}

int64_t TensorSpec::StorageElements() const {
  int64_t product = 1;
  for (int64_t d : storage.empty() ? dims : storage) product *= std::max<int64_t>(d, 0);
  return product;
}

CallSpec ValidCall(const aclnn_upsample_operator& op, aclFormat format, int64_t n, int64_t c,
                   int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w) {
  const bool forward = op.direction == ACLNN_UPSAMPLE_FORWARD;
  const std::vector<int64_t> image = InFormat(format, n, c, in_h, in_w);
  const std::vector<int64_t> resized = InFormat(format, n, c, out_h, out_w);
  CallSpec call;
  call.source.dims = forward ? image : resized;
  call.out.dims = forward ? resized : image;
  call.source.format = call.out.format = format;
  call.output_size = {out_h, out_w};
  call.input_size = image;
  return call;
}

Invocation::Invocation(const aclnn_upsample_operator& op, const CallSpec& call)
    : op_(op), call_(call) {
  const size_t source_elem = ElementSize(call.source.dtype);
  const size_t out_elem = ElementSize(call.out.dtype);
  int64_t out_elements = std::min(call.out.StorageElements(), kMaxBackedElements);
  const int64_t source_elements = std::min(call.source.StorageElements(), kMaxBackedElements);
  if (call.source_inside_out_at >= 0) {
    out_elements = std::max(out_elements, call.source_inside_out_at + source_elements);
  }
  out_buffer_.assign(std::max<int64_t>(out_elements, 1) * out_elem, kInvocationSentinel);
  int64_t source_total = source_elements;
  if (call.out_inside_source_at >= 0) {
    source_total = std::max(source_total, call.out_inside_source_at + out_elements);
  }
  // Finite values (0x3F3F... is about 0.75 as FLOAT32) so that a run that should happen can.
  source_buffer_.assign(std::max<int64_t>(source_total, 1) * source_elem, 0x3F);
  void* source_data = call.source_inside_out_at >= 0
                          ? out_buffer_.data() + call.source_inside_out_at * source_elem
                          : source_buffer_.data();
  void* out_data = call.out_inside_source_at >= 0
                       ? source_buffer_.data() + call.out_inside_source_at * out_elem
                       : out_buffer_.data();
  source_ = MakeTensor(call.source, call.source.null_data ? nullptr : source_data);
  out_ = MakeTensor(call.out, call.out.null_data ? nullptr : out_data);
  output_size_ = aclCreateIntArray(call.output_size.data(), call.output_size.size());
  input_size_ = aclCreateIntArray(call.input_size.data(), call.input_size.size());
  out_snapshot_ = out_buffer_;
  source_snapshot_ = source_buffer_;
}

Invocation::~Invocation() {
  // A single-use executor that phase 2 never consumed is still registered.
  if (executor_ != nullptr && !consumed_) aclDestroyAclOpExecutor(executor_);
  aclDestroyTensor(source_);
  aclDestroyTensor(out_);
  aclDestroyIntArray(output_size_);
  aclDestroyIntArray(input_size_);
}

aclnnStatus Invocation::Phase1() {
  const int null = call_.null_parameter;
  const bool forward = op_.direction == ACLNN_UPSAMPLE_FORWARD;
  return op_.get_workspace_size(null == 0 ? nullptr : source_, null == 1 ? nullptr : output_size_,
                                forward ? nullptr : input_size_, call_.align_corners,
                                call_.scales_h, call_.scales_w, null == 2 ? nullptr : out_,
                                null == 3 ? nullptr : &workspace_size_,
                                null == 4 ? nullptr : &executor_);
}

aclnnStatus Invocation::Phase2(uint64_t size, bool null_workspace,
                               const aclnn_upsample_operator* runner) {
  workspace_.assign(size, 0);
  consumed_ = true;  // single-use executors are consumed whether the run succeeds or fails
  return (runner ? runner : &op_)
      ->run(null_workspace ? nullptr : workspace_.data(), size, executor_, nullptr);
}

bool Invocation::Untouched() const {
  return out_buffer_ == out_snapshot_ && source_buffer_ == source_snapshot_;
}

std::string AcceptedFormats(const aclnn_upsample_operator& op) {
  if (op.accepts_nhwc && op.accepts_nd) return "NCHW, NHWC or ND";
  if (op.accepts_nhwc) return "NCHW or NHWC";
  return op.accepts_nd ? "NCHW or ND" : "NCHW";
}

std::string RecentMessage() {
  const char* message = aclGetRecentErrMsg();
  return message == nullptr ? "<null>" : message;
}

}  // namespace support
