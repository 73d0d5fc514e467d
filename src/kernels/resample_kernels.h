// The arithmetic of the two separable passes, vectorised with Highway and dispatched once per
// process to the best target the CPU supports (a portable target is always built).
//
// Determinism: every output element is computed by the same sequence of operations whatever its
// position in a row (vector body or tail), so results do not depend on how rows are cut into
// tasks or on the thread count.
#ifndef ACLNN_UPSAMPLE_KERNELS_RESAMPLE_KERNELS_H_
#define ACLNN_UPSAMPLE_KERNELS_RESAMPLE_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "engine/dtype.h"

namespace aclnn_upsample {
namespace kernels {

// dst[j] = sum_{k < count} weights[k] * src[k * src_stride + j] for j < n, summed in k order.
// count == 0 writes zeros. Used where the reduced axis is not the contiguous one: the H pass,
// and both passes of channels-last tensors.
void CombineRows(float* dst, size_t n, const float* src, ptrdiff_t src_stride,
                 const float* weights, size_t count);

// dst[i] = sum_{k} weights[offset[i] + k] * src[first[i] + k] for i < n, summed in k order.
// The W pass of planar tensors: each result column gathers a short run of gradOut columns.
void GatherRow(float* dst, size_t n, const float* src, const int32_t* first,
               const int32_t* offset, const float* weights);

// Converts n elements of `dtype` at src[0], src[stride], ... into contiguous floats.
void LoadAsFloat(DType dtype, const void* src, ptrdiff_t stride, size_t n, float* dst);

// Rounds n contiguous floats to `dtype` (nearest even) into dst[0], dst[stride], ...
void StoreFromFloat(DType dtype, const float* src, size_t n, void* dst, ptrdiff_t stride);

// The name of the target the dispatcher chose, e.g. "AVX2" or "EMU128".
const char* ActiveTargetName();

}  // namespace kernels
}  // namespace aclnn_upsample

#endif  // ACLNN_UPSAMPLE_KERNELS_RESAMPLE_KERNELS_H_
