// Copyright ferry authors. Internal: a module's file sent to a host that
// lacks it (mpi_pool_options::ship_modules; docs/api/mpi.md, "Modules").
//
// The message (kind module) holds the module's path on rank 0, its raw
// build-id, the SHA-256 of the file's bytes and the bytes. The agent stores
// the file in its private directory, which its workers search by build-id,
// only when both the hash and the file's build-id are the ones announced.
#ifndef FERRY_SRC_MPI_MODULE_SHIPPING_H_
#define FERRY_SRC_MPI_MODULE_SHIPPING_H_

#include <filesystem>
#include <string>
#include <string_view>

namespace ferry::detail::mpi {

// The body of a module message for the file at `path`, which must still be
// the build `build_id` (raw). Throws ferry::module_load_error when it cannot
// be read or is another build now.
std::string module_message(const std::string& path, const std::string& build_id);

// Stores the module a message carries in `dir` as <build-id in hex>.so and
// returns where, unless a file of that build-id is there already. Throws
// ferry::error, storing nothing, when the bytes do not hash to the
// announced SHA-256 or the file's build-id is not the announced one.
std::filesystem::path store_module(std::string_view body, const std::filesystem::path& dir);

}  // namespace ferry::detail::mpi

#endif  // FERRY_SRC_MPI_MODULE_SHIPPING_H_
