// Copyright ferry authors. Internal: CRC-32C (Castagnoli), the frame checksum.
#ifndef FERRY_SRC_SERIALIZE_FRAME_CRC32C_H_
#define FERRY_SRC_SERIALIZE_FRAME_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace ferry::detail {

// The ways to compute the checksum, fastest first: folding by carry-less
// multiplication on 512-bit registers (VPCLMULQDQ with AVX-512) or on
// 256-bit ones (VPCLMULQDQ with AVX2), the SSE4.2 crc instruction, a table.
enum class crc_path { folded_512, folded_256, crc_instruction, table };

// Whether this CPU has the instructions `path` takes.
bool cpu_has(crc_path path);

// CRC-32C of data, by the fastest path the CPU has.
std::uint32_t crc32c(const void* data, std::size_t size);

// The same checksum by `path`, which the CPU must have; for tests of every
// path on one machine and for the checksum's benchmark. A payload too short
// to fold goes on to the crc instruction, as crc32c does.
std::uint32_t crc32c_by(crc_path path, const void* data, std::size_t size);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_FRAME_CRC32C_H_
