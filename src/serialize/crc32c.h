// Copyright ferry authors. Internal: CRC-32C (Castagnoli), the frame checksum.
#ifndef FERRY_SRC_SERIALIZE_CRC32C_H_
#define FERRY_SRC_SERIALIZE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace ferry::detail {

// CRC-32C of data, using the SSE4.2 instruction where the CPU has it.
std::uint32_t crc32c(const void* data, std::size_t size);

}  // namespace ferry::detail

#endif  // FERRY_SRC_SERIALIZE_CRC32C_H_
