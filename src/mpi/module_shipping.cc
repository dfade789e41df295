// Copyright ferry authors.
#include "mpi/module_shipping.h"

#include <openssl/sha.h>
#include <unistd.h>

#include <cereal/types/string.hpp>
#include <fstream>
#include <system_error>

#include "serialize/code/payload_code.h"
#include <serialize/archive.h>
#include <serialize/error.h>

namespace ferry::detail::mpi {
namespace {

std::string sha256(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

std::string hex(std::string_view raw) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

}  // namespace

std::string module_message(const std::string& path, const std::string& build_id) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw module_load_error(path, "cannot read it to send it to another host");
  std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    throw module_load_error(path, "cannot read it to send it to another host");
  if (file_build_id(path) != build_id)
    throw module_load_error(path, "the file is no longer the build this process loaded");
  std::string out;
  output_archive ar(out);
  ar(path, build_id, sha256(bytes), bytes);
  return out;
}

std::filesystem::path store_module(std::string_view body, const std::filesystem::path& dir) {
  std::string path, build_id, hash, bytes;
  input_archive ar(body);
  ar(path, build_id, hash, bytes);
  if (sha256(bytes) != hash)
    throw error("ferry: the bytes sent for module '" + path + "' do not match their SHA-256; not stored");
  const std::filesystem::path target = dir / (hex(build_id) + ".so");
  std::error_code ec;
  if (std::filesystem::exists(target, ec)) return {};
  const std::filesystem::path partial = dir / (hex(build_id) + ".partial");
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw error("ferry: cannot write '" + partial.string() + "'");
  }
  std::string found;
  try {
    found = file_build_id(partial.string());
  } catch (const std::exception&) {
  }
  if (found != build_id) {
    std::filesystem::remove(partial, ec);
    throw error("ferry: the file sent for module '" + path + "' has build-id " + hex(found) +
                ", not the announced " + hex(build_id) + "; not stored");
  }
  std::filesystem::rename(partial, target);
  return target;
}

}  // namespace ferry::detail::mpi
