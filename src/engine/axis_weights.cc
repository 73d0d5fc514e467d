#include "engine/axis_weights.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace aclnn_upsample {

void ForwardAxis::AddRow(int64_t first_input, const double* taps, int64_t count) {
  if (weight_offset.empty()) weight_offset.push_back(0);
  first.push_back(first_input);
  weights.insert(weights.end(), taps, taps + count);
  weight_offset.push_back(static_cast<int64_t>(weights.size()));
}

AxisRuns Transpose(const ForwardAxis& forward) {
  const int64_t in_size = forward.in_size;
  const int64_t out_size = forward.out_size;
  // Runs of output indices per input index: [run_begin[i], run_end[i]).
  std::vector<int64_t> run_begin(in_size, out_size);
  std::vector<int64_t> run_end(in_size, 0);
  for (int64_t o = 0; o < out_size; ++o) {
    const int64_t count = forward.weight_offset[o + 1] - forward.weight_offset[o];
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = forward.first[o] + k;
      run_begin[i] = std::min(run_begin[i], o);
      run_end[i] = std::max(run_end[i], o + 1);
    }
  }
  AxisRuns backward;
  backward.result_size = static_cast<int32_t>(in_size);
  backward.source_size = static_cast<int32_t>(out_size);
  backward.first.resize(in_size);
  backward.weight_offset.resize(in_size + 1);
  int64_t total = 0;
  for (int64_t i = 0; i < in_size; ++i) {
    if (run_end[i] <= run_begin[i]) run_begin[i] = run_end[i] = 0;  // no output uses input i
    backward.first[i] = static_cast<int32_t>(run_begin[i]);
    backward.weight_offset[i] = static_cast<int32_t>(total);
    const int64_t count = run_end[i] - run_begin[i];
    backward.max_count = std::max(backward.max_count, static_cast<int32_t>(count));
    total += count;
  }
  backward.weight_offset[in_size] = static_cast<int32_t>(total);

  // Sum in float64 (taps of one output at the same input, e.g. bilinear's last column, merge),
  // then round each matrix entry once.
  std::vector<double> dense(total, 0.0);
  for (int64_t o = 0; o < out_size; ++o) {
    const int64_t count = forward.weight_offset[o + 1] - forward.weight_offset[o];
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = forward.first[o] + k;
      dense[backward.weight_offset[i] + (o - run_begin[i])] +=
          forward.weights[forward.weight_offset[o] + k];
    }
  }
  backward.weights.assign(dense.begin(), dense.end());

  bool identity = in_size == out_size;
  for (int64_t i = 0; identity && i < in_size; ++i) {
    identity = backward.count(i) == 1 && backward.first[i] == i &&
               backward.weights[backward.weight_offset[i]] == 1.0f;
  }
  backward.identity = identity;
  return backward;
}

AxisRuns AsGather(const ForwardAxis& forward) {
  const int64_t out_size = forward.out_size;
  AxisRuns gather;
  gather.result_size = static_cast<int32_t>(out_size);  // the result: the forward output
  gather.source_size = static_cast<int32_t>(forward.in_size);
  gather.first.resize(out_size);
  gather.weight_offset.resize(out_size + 1);
  // A weight builder's taps of one output sit at consecutive input indices, each index once
  // (bilinear merges its two taps on the last input into one), so each row is already a run.
  std::vector<double> dense;
  for (int64_t o = 0; o < out_size; ++o) {
    const int64_t begin = forward.weight_offset[o], count = forward.weight_offset[o + 1] - begin;
    gather.first[o] = count > 0 ? static_cast<int32_t>(forward.first[o]) : 0;
    gather.weight_offset[o] = static_cast<int32_t>(dense.size());
    gather.max_count = std::max(gather.max_count, static_cast<int32_t>(count));
    dense.insert(dense.end(), forward.weights.begin() + begin,
                 forward.weights.begin() + begin + count);
  }
  gather.weight_offset[out_size] = static_cast<int32_t>(dense.size());
  gather.weights.assign(dense.begin(), dense.end());
  bool identity = forward.in_size == out_size;
  for (int64_t o = 0; identity && o < out_size; ++o) {
    identity = gather.count(o) == 1 && gather.first[o] == o &&
               gather.weights[gather.weight_offset[o]] == 1.0f;
  }
  gather.identity = identity;
  return gather;
}

int64_t TapCount(const AxisRuns& axis) {
  return axis.weight_offset.empty() ? 0 : axis.weight_offset.back();
}

TapTable MakeTapTable(const AxisRuns& axis, int32_t max_taps, size_t max_floats) {
  TapTable table;
  const int64_t length = axis.result_size;
  int32_t taps = 0;
  for (int64_t i = 0; i < length; ++i) taps = std::max(taps, axis.count(i));
  if (taps == 0 || taps > max_taps || static_cast<size_t>(taps * length) > max_floats) return table;
  table.taps = taps;
  table.weights.assign(static_cast<size_t>(taps * length), 0.0f);
  for (int64_t i = 0; i < length; ++i) {
    for (int32_t k = 0; k < axis.count(i); ++k) {
      table.weights[static_cast<size_t>(k * length + i)] = axis.weights[axis.weight_offset[i] + k];
    }
  }
  return table;
}

BlockedAxis BlockAxis(const AxisRuns& axis, int32_t lanes, size_t max_floats) {
  BlockedAxis blocked;
  if (lanes <= 1) return blocked;
  const int64_t length = axis.result_size;
  const int64_t num_blocks = (length + lanes - 1) / lanes;
  int64_t total_floats = 0;
  std::vector<int32_t> begins(num_blocks), windows(num_blocks);
  for (int64_t b = 0; b < num_blocks; ++b) {
    int64_t lo = axis.source_size, hi = 0;
    for (int64_t i = b * lanes; i < std::min(length, (b + 1) * lanes); ++i) {
      if (axis.count(i) == 0) continue;
      lo = std::min<int64_t>(lo, axis.first[i]);
      hi = std::max<int64_t>(hi, axis.first[i] + axis.count(i));
    }
    if (hi <= lo) lo = hi = 0;
    begins[b] = static_cast<int32_t>(lo);
    windows[b] = static_cast<int32_t>(hi - lo);
    blocked.window_steps += hi - lo;
    total_floats += (hi - lo) * lanes;
  }
  // A window step is one vector FMA for `lanes` elements, an exact tap one scalar FMA.
  if (blocked.window_steps > TapCount(axis) || total_floats > static_cast<int64_t>(max_floats)) {
    return BlockedAxis{};
  }
  blocked.lanes = lanes;
  blocked.window_begin = std::move(begins);
  blocked.block_offset.resize(num_blocks + 1, 0);
  for (int64_t b = 0; b < num_blocks; ++b) {
    blocked.block_offset[b + 1] = blocked.block_offset[b] + windows[b] * lanes;
  }
  blocked.weights.assign(total_floats, 0.0f);
  for (int64_t i = 0; i < length; ++i) {
    const int64_t b = i / lanes, lane = i % lanes;
    for (int32_t k = 0; k < axis.count(i); ++k) {
      const int64_t column = axis.first[i] + k - blocked.window_begin[b];
      blocked.weights[blocked.block_offset[b] + column * lanes + lane] =
          axis.weights[axis.weight_offset[i] + k];
    }
  }
  return blocked;
}

UniformInterior FindUniformInterior(const AxisRuns& axis, int32_t min_length, int32_t max_stride,
                                    int32_t max_taps) {
  max_stride = std::min(max_stride, 4);  // UniformInterior's contract
  const int32_t length = axis.result_size;
  if (length < 2 || length < min_length) return {};
  const int32_t middle = (length - 1) / 2;
  const int32_t count = axis.count(middle);
  const int32_t stride = axis.first[middle + 1] - axis.first[middle];
  if (count == 0 || count > max_taps || stride < 1 || stride > max_stride) return {};
  const int64_t shift = int64_t{axis.first[middle]} - int64_t{stride} * middle;
  const float* shared = axis.weights.data() + axis.weight_offset[middle];
  auto matches = [&](int32_t i) {
    return axis.count(i) == count && axis.first[i] == int64_t{stride} * i + shift &&
           std::equal(shared, shared + count, axis.weights.data() + axis.weight_offset[i]);
  };
  int32_t begin = middle, end = middle + 1;
  while (begin > 0 && matches(begin - 1)) --begin;
  while (end < length && matches(end)) ++end;
  if (end - begin < min_length) return {};
  UniformInterior uniform;
  uniform.stride = stride;
  uniform.begin = begin;
  uniform.end = end;
  uniform.shift = static_cast<int32_t>(shift);
  uniform.weights.assign(shared, shared + count);
  return uniform;
}

namespace {

// The extent of each lane pattern: pattern t's lane l is element e = start_of(t) + l, whose run
// is run_of(e) and whose first column is first_at(e), its taps `channels` columns apart. A
// pattern's base is the lowest column its lanes with taps read (-1 where none has a tap); the
// taps are the longest run, the span the most columns any pattern reads from its base.
struct PatternExtent {
  std::vector<int32_t> bases;
  int32_t taps = 0, span = 0;
};

template <class StartOf, class RunOf, class FirstAt>
PatternExtent MeasurePatterns(const AxisRuns& axis, int32_t patterns, int32_t lanes,
                              int32_t channels, StartOf start_of, RunOf run_of, FirstAt first_at) {
  PatternExtent extent;
  extent.bases.assign(static_cast<size_t>(patterns), -1);
  for (int32_t t = 0; t < patterns; ++t) {
    const int64_t start = start_of(t);
    int32_t& base = extent.bases[static_cast<size_t>(t)];
    for (int32_t l = 0; l < lanes; ++l) {
      if (axis.count(run_of(start + l)) > 0 && (base < 0 || first_at(start + l) < base)) {
        base = first_at(start + l);
      }
    }
    for (int32_t l = 0; l < lanes; ++l) {
      const int32_t count = axis.count(run_of(start + l));
      if (count == 0) continue;
      extent.taps = std::max(extent.taps, count);
      extent.span = std::max(extent.span, first_at(start + l) + (count - 1) * channels + 1 - base);
    }
  }
  return extent;
}

// The lane tables of `interior` (its lanes, taps and patterns set): pattern t's lane l is
// element e = start_of(t) + l, whose run is run_of(e) and whose first column is first_at(e), its
// taps `channels` columns apart, each tap's column counted from the pattern's base. Also sizes
// the per-pattern successor tables for the caller to fill.
template <class StartOf, class RunOf, class FirstAt>
void FillLaneTables(const AxisRuns& axis, const std::vector<int32_t>& bases, int32_t channels,
                    StartOf start_of, RunOf run_of, FirstAt first_at, PeriodicInterior* interior) {
  const auto lanes = static_cast<size_t>(interior->lanes);
  const auto taps = static_cast<size_t>(interior->taps);
  const auto patterns = static_cast<size_t>(interior->patterns);
  interior->counts.assign(patterns * lanes, 0);
  interior->index.assign(patterns * taps * lanes, 0);
  interior->weights.assign(patterns * taps * lanes, 0.0f);
  interior->next_pattern.resize(patterns);
  interior->base_step.resize(patterns);
  for (size_t t = 0; t < patterns; ++t) {
    const int64_t start = start_of(static_cast<int32_t>(t));
    for (size_t l = 0; l < lanes; ++l) {
      const int64_t e = start + static_cast<int64_t>(l);
      const int32_t run = run_of(e);
      const int32_t count = axis.count(run);
      interior->counts[t * lanes + l] = count;
      for (int32_t k = 0; k < count; ++k) {
        const size_t at = (t * taps + static_cast<size_t>(k)) * lanes + l;
        interior->index[at] = first_at(e) + k * channels - bases[t];
        interior->weights[at] = axis.weights[axis.weight_offset[run] + k];
      }
    }
  }
}

// The periodic interior of `period` around the middle of the axis (FindPeriodicInterior), over
// rows of pixels of `channels` interleaved channels: element e = i * channels + c is channel c
// of index i, and its taps lie `channels` elements apart. None: lanes == 0.
PeriodicInterior PeriodicInteriorOf(const AxisRuns& axis, int32_t period, int32_t lanes,
                                    int32_t max_taps, int32_t min_vectors, int32_t channels,
                                    PeriodicReach reach) {
  const int32_t length = axis.result_size;
  const int32_t middle = (length - 1) / 2;
  // The shift is read off the first index from the middle on that has a run, as does the one a
  // period on: an empty run's first column means nothing. (Read off the middle itself, a
  // nearest 2x downscale's gradient, whose every other run is empty, found no period where the
  // middle index was one of those and fell to the blocked form, 2.7x the W pass's time.)
  int32_t anchor = middle;
  while (anchor < middle + period && anchor + period < length &&
         (axis.count(anchor) == 0 || axis.count(anchor + period) == 0)) {
    ++anchor;
  }
  if (anchor + period >= length) return {};
  const int32_t shift = axis.first[anchor + period] - axis.first[anchor];
  // Whether index i's run is index (i + period)'s shifted back by `shift`.
  auto repeats = [&](int32_t i) {
    const int32_t count = axis.count(i);
    return count == axis.count(i + period) && count <= max_taps &&
           (count == 0 || axis.first[i + period] == axis.first[i] + shift) &&
           std::equal(axis.weights.data() + axis.weight_offset[i],
                      axis.weights.data() + axis.weight_offset[i] + count,
                      axis.weights.data() + axis.weight_offset[i + period]);
  };
  // [begin, end) holds runs that all repeat: every index in it shares its phase's run.
  int32_t begin = middle, end = middle;
  while (begin > 0 && repeats(begin - 1)) --begin;
  while (end + period < length && repeats(end)) ++end;
  end += period;  // the last period's runs are the images of the one before
  const int64_t vectors = int64_t{end - begin} * channels / lanes;
  if (vectors < min_vectors) return {};

  // Element j of the interior (from element begin * channels) is channel j % channels of index
  // begin + j / channels, whose run is that of begin + (j / channels) % period shifted by
  // (j / channels) / period periods; so the elements repeat every period * channels.
  const auto run_of = [&](int64_t j) { return begin + (j / channels) % period; };
  const auto first_at = [&](int64_t j) {
    const int64_t index = j / channels;
    return (axis.first[run_of(j)] + static_cast<int32_t>(index / period) * shift) * channels +
           static_cast<int32_t>(j % channels);
  };
  const int32_t element_period = period * channels;
  // A vector may start at any multiple of the gcd of the period and the lanes within the
  // period; each such start has its own lane pattern.
  const int32_t starts = std::gcd(element_period, lanes);
  const int32_t patterns = element_period / starts;
  if (patterns > kMaxPeriodicPatterns) return {};
  PeriodicInterior periodic;
  periodic.lanes = lanes;
  periodic.period = element_period;
  periodic.shift = shift * channels;
  periodic.begin = begin * channels;
  periodic.patterns = patterns;
  const auto start_of = [&](int32_t t) { return int64_t{t} * starts; };
  const auto run_index = [&](int64_t j) { return static_cast<int32_t>(run_of(j)); };
  const PatternExtent extent =
      MeasurePatterns(axis, patterns, lanes, channels, start_of, run_index, first_at);
  const std::vector<int32_t>& bases = extent.bases;
  if (extent.taps == 0 || !reach.Allows(extent.span, extent.taps, lanes) ||
      std::find(bases.begin(), bases.end(), -1) != bases.end()) {
    return {};
  }
  periodic.base = bases[0];
  periodic.taps = extent.taps;
  periodic.span = extent.span;
  FillLaneTables(axis, bases, channels, start_of, run_index, first_at, &periodic);
  for (int32_t t = 0; t < patterns; ++t) {
    const int64_t start = int64_t{t} * starts;
    // The next vector starts `lanes` later: its start within the period and its base.
    const int64_t next = start + lanes;
    periodic.next_pattern[t] = static_cast<int32_t>(next % element_period) / starts;
    periodic.base_step[t] = bases[periodic.next_pattern[t]] +
                            static_cast<int32_t>(next / element_period) * periodic.shift - bases[t];
  }
  // Whole vectors inside the interior, including those whose loads (one to four vectors from
  // the base) would leave the row: the kernel loads those from a padded copy. (Excluding them
  // instead left a vector of each row to the scalar exact gather, 16 columns of 128 on
  // AVX-512, which ran behind AVX2's 8: bench/RESULTS.md.)
  periodic.vectors = static_cast<int32_t>(vectors);
  const int64_t rest = int64_t{end - begin} * channels - vectors * lanes;
  periodic.overhang = static_cast<int32_t>(rest / starts * starts);
  const int64_t overhang_start = (vectors - 1) * lanes + periodic.overhang;
  periodic.overhang_pattern = static_cast<int32_t>(overhang_start % element_period) / starts;
  periodic.overhang_base = bases[periodic.overhang_pattern] +
                           static_cast<int32_t>(overhang_start / element_period) * periodic.shift;
  return periodic;
}

}  // namespace

PeriodicInterior FindRowTableInterior(const AxisRuns& axis, int32_t lanes, int32_t max_taps,
                                      int32_t min_vectors, size_t max_table_bytes,
                                      PeriodicReach reach, int32_t channels) {
  if (lanes < 1 || (lanes & (lanes - 1)) != 0 || min_vectors < 1 || channels < 1) return {};
  const int32_t length = axis.result_size;
  if (int64_t{length} * channels < int64_t{lanes} * min_vectors) return {};
  // The interior: the indices around the middle whose runs have at most max_taps taps. Empty
  // runs are in (the kernels keep such a lane's zero through every tap), so that the gradient of
  // a nearest downscale by a ratio with no short period (256 -> 200), every fourth or so of whose
  // runs is empty, has an interior at all.
  const auto fits = [&](int32_t i) { return axis.count(i) <= max_taps; };
  const int32_t middle = (length - 1) / 2;
  if (!fits(middle)) return {};
  int32_t begin = middle, end = middle + 1;
  while (begin > 0 && fits(begin - 1)) --begin;
  while (end < length && fits(end)) ++end;
  // Counted in elements from here on: element e = i * channels + c is channel c of index i, its
  // taps `channels` elements apart.
  const int64_t elements = int64_t{end - begin} * channels;
  const auto vectors = static_cast<int32_t>(elements / lanes);
  if (vectors < min_vectors) return {};
  const auto overhang = static_cast<int32_t>(elements - int64_t{vectors} * lanes);
  // A pattern per whole vector, and one more for the overhanging vector.
  const int32_t patterns = vectors + (overhang > 0 ? 1 : 0);
  const int64_t first_element = int64_t{begin} * channels;
  const auto start_of = [&](int32_t t) {
    return first_element +
           (t < vectors ? int64_t{t} * lanes : int64_t{vectors - 1} * lanes + overhang);
  };
  const auto run_index = [&](int64_t e) { return static_cast<int32_t>(e / channels); };
  const auto first_at = [&](int64_t e) {
    return axis.first[e / channels] * channels + static_cast<int32_t>(e % channels);
  };
  const PatternExtent extent =
      MeasurePatterns(axis, patterns, lanes, channels, start_of, run_index, first_at);
  const std::vector<int32_t>& bases = extent.bases;
  const int32_t taps = extent.taps;
  // A vector with no tap in any lane has no base to load from.
  if (taps == 0 || std::find(bases.begin(), bases.end(), -1) != bases.end()) return {};
  const size_t table_bytes = static_cast<size_t>(patterns) * static_cast<size_t>(taps) *
                             static_cast<size_t>(lanes) * (sizeof(int32_t) + sizeof(float));
  if (!reach.Allows(extent.span, taps, lanes) || table_bytes > max_table_bytes) return {};
  PeriodicInterior table;
  table.lanes = lanes;
  table.begin = static_cast<int32_t>(first_element);
  table.vectors = vectors;
  table.patterns = patterns;
  table.overhang = overhang;
  table.overhang_pattern = overhang > 0 ? vectors : 0;
  table.overhang_base = overhang > 0 ? bases.back() : 0;
  table.base = bases[0];
  table.taps = taps;
  table.span = extent.span;
  FillLaneTables(axis, bases, channels, start_of, run_index, first_at, &table);
  for (int32_t t = 0; t < patterns; ++t) {
    // Vector t + 1 follows vector t; the last whole one's successor is never run.
    const int32_t next = t + 1 < vectors ? t + 1 : 0;
    table.next_pattern[static_cast<size_t>(t)] = next;
    table.base_step[static_cast<size_t>(t)] =
        bases[static_cast<size_t>(next)] - bases[static_cast<size_t>(t)];
  }
  return table;
}

PeriodicInterior FindPeriodicInterior(const AxisRuns& axis, int32_t lanes, int32_t max_taps,
                                      int32_t min_vectors, int32_t channels, PeriodicReach reach) {
  // Power-of-two lanes only: the kernels find a tap's lane with a mask.
  if (lanes < 1 || (lanes & (lanes - 1)) != 0) return {};
  if (channels < 1 || min_vectors < 1 ||
      int64_t{axis.result_size} * channels < int64_t{lanes} * min_vectors) {
    return {};
  }
  // The period with the most vectors: a short one can hold over a short stretch of a longer
  // one's axis (runs of 8/7 rounding alike for four indices), and a multiple of the true
  // period repeats too, so a longer period replaces a shorter one only with more vectors.
  PeriodicInterior best;
  for (int32_t period = 1; period <= kMaxPeriod; ++period) {
    PeriodicInterior periodic =
        PeriodicInteriorOf(axis, period, lanes, max_taps, min_vectors, channels, reach);
    if (periodic.lanes > 0 && (best.lanes == 0 || periodic.vectors > best.vectors)) {
      best = std::move(periodic);
    }
  }
  return best;
}

}  // namespace aclnn_upsample
