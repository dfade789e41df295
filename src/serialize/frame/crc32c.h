// Copyright ferry authors. Internal: CRC-32C (Castagnoli), the frame checksum.
#ifndef FERRY_SRC_SERIALIZE_FRAME_CRC32C_H_
#define FERRY_SRC_SERIALIZE_FRAME_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace ferry::detail {

// CRC-32C of data: folded by carry-less multiplication where the CPU has
// VPCLMULQDQ and AVX2, else with the SSE4.2 crc instruction where it has
// that, else a table.
std::uint32_t crc32c(const void* data, std::size_t size);

// The same checksum never folded, as on a CPU without VPCLMULQDQ; for tests
// of both paths on one machine.
std::uint32_t crc32c_unfolded(const void* data, std::size_t size);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_FRAME_CRC32C_H_
