// Copyright ferry authors.
//
// Module identity and the module policy. The plugin's closures are made in a
// child process, so this process has never loaded the plugin and must go
// through the policy to run them.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <serialize/serialize.h>

#include "../error_message.h"
#include "test_util.h"

namespace fs = std::filesystem;
using ferry::testing::with_module_path;

namespace {

const fs::path plugin = FERRY_TEST_PLUGIN;
const fs::path plugin_variant = FERRY_TEST_PLUGIN_VARIANT;

// Bytes of the plugin closure `kind`, made by a child that loads the plugin.
std::string bytes_from_plugin(const fs::path& library, const char* kind) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    void* handle = dlopen(library.c_str(), RTLD_NOW);
    auto make = handle ? reinterpret_cast<std::string* (*)(const char*)>(dlsym(handle, "ferry_test_make")) : nullptr;
    if (make == nullptr) _exit(3);
    const std::string* bytes = make(kind);
    const char* p = bytes->data();
    std::size_t left = bytes->size();
    while (left > 0) {
      const ssize_t n = write(fds[1], p, left);
      if (n <= 0) _exit(4);
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("child failed");
  return out;
}

bool is_mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

using int_fn = ferry::function<int(int)>;

class ModuleLoading : public ::testing::Test {
 protected:
  void SetUp() override {
    ferry::clear_allowed_modules();
    ASSERT_FALSE(is_mapped("libferry_test_plugin.so")) << "the test process must not link the plugin";
  }
  void TearDown() override { ferry::clear_allowed_modules(); }
};

// The build_id_mismatch_error that loading `bytes` as an int_fn throws;
// a failure of the test when it throws another error or none.
ferry::build_id_mismatch_error mismatch_loading(const std::string& bytes) {
  return ferry_test::caught_as<ferry::build_id_mismatch_error>(
      ferry_test::thrown_by([&] { (void)ferry::loads<int_fn>(bytes); }));
}

}  // namespace

TEST_F(ModuleLoading, NotAllowedIsRefusedAndNeverOpened) {
  const std::string bytes = bytes_from_plugin(plugin, "lambda");
  try {
    (void)ferry::loads<int_fn>(bytes);
    FAIL() << "expected module_not_allowed_error";
  } catch (const ferry::module_not_allowed_error& e) {
    EXPECT_EQ(fs::path(e.path()), fs::canonical(plugin));
    EXPECT_NE(std::string(e.what()).find("allow_module"), std::string::npos);
  }
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
}

TEST_F(ModuleLoading, AllowedDirectoryLoadsThePlugin) {
  const std::string lambda = bytes_from_plugin(plugin, "lambda");
  const std::string pointer = bytes_from_plugin(plugin, "pointer");
  const std::string closure = bytes_from_plugin(plugin, "closure");
  ferry::allow_module(plugin.parent_path());
  EXPECT_EQ(ferry::loads<int_fn>(lambda)(1), 2);
  EXPECT_TRUE(is_mapped("libferry_test_plugin.so"));
  EXPECT_EQ(ferry::loads<int_fn>(pointer)(5), 10);  // a static function of the plugin
  EXPECT_EQ(ferry::loads<int_fn>(closure)(1), 4);
}

TEST_F(ModuleLoading, PluginCodeIsAttributedToThePlugin) {
  // This executable instantiates the model for int(*)(int) too; the plugin's
  // function must still name the plugin, not whichever copy the dynamic
  // linker bound first.
  ferry::function<int(int)> here = +[](int x) { return x; };
  ASSERT_TRUE(here);
  const std::string bytes = bytes_from_plugin(plugin, "pointer");
  const ferry::inspection what = ferry::inspect(bytes);
  EXPECT_EQ(what.kind, "pointer");
  EXPECT_EQ(what.signature, "int (int)");
  ASSERT_EQ(what.modules.size(), 1u);
  EXPECT_TRUE(what.modules[0].holds_function);
  EXPECT_EQ(fs::path(what.modules[0].path).filename(), plugin.filename());
}

TEST_F(ModuleLoading, AllowedFileLoadsThePlugin) {
  const std::string bytes = bytes_from_plugin(plugin, "lambda");
  ferry::allow_module(plugin);
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
}

TEST_F(ModuleLoading, AlreadyLoadedModuleNeedsNoAllowance) {
  const std::string bytes = bytes_from_plugin(plugin, "lambda");
  ferry::allow_module(plugin);
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
  ferry::clear_allowed_modules();
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(2), 3);
}

TEST_F(ModuleLoading, OtherBuildIsABuildIdMismatch) {
  // Made by the variant build; the allowed directory holds the other build
  // under the same file name.
  const std::string bytes = bytes_from_plugin(plugin_variant, "lambda");
  const fs::path dir = fs::temp_directory_path() / ("ferry_other_build_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(plugin, dir / plugin.filename(), fs::copy_options::overwrite_existing);
  ferry::allow_module(dir);
  try {
    (void)ferry::loads<int_fn>(bytes);
    FAIL() << "expected build_id_mismatch_error";
  } catch (const ferry::build_id_mismatch_error& e) {
    EXPECT_EQ(e.expected().size(), 40u);  // sha1
    EXPECT_EQ(e.found().size(), 40u);
    EXPECT_NE(e.expected(), e.found());
    EXPECT_NE(std::string(e.what()).find(e.expected()), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(e.found()), std::string::npos);
    // The file examined, in the allowed directory, is not the recorded one.
    EXPECT_EQ(e.examined(), fs::canonical(dir / plugin.filename()).string());
    EXPECT_EQ(e.path(), fs::path(plugin_variant).string());
    EXPECT_NE(std::string(e.what()).find("was looked for at '" + e.examined() + "'"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
  fs::remove_all(dir);
}

// Bytes written by a build of this very program before it was rebuilt: the
// error names the build that runs here, whether or not the program was
// allowed, rather than asking for an allowance that could not help or
// calling it another program.
TEST_F(ModuleLoading, BytesOfAnotherBuildOfThisProgramSayWhichBuildRunsHere) {
  ferry::function<int(int)> f = [](int x) { return x + 1; };
  std::string bytes = ferry::dumps(f);
  const std::string here = ferry::inspect(bytes).modules.at(0).build_id;
  const auto l = ferry::testing::layout_of(bytes);
  bytes[l.build_id_at] = static_cast<char>(bytes[l.build_id_at] ^ 0x5a);  // an earlier build
  bytes = ferry::testing::reseal(bytes);
  for (const bool allowed : {false, true}) {
    if (allowed) ferry::allow_module(fs::canonical("/proc/self/exe"));
    const auto e = mismatch_loading(bytes);
    EXPECT_EQ(e.found(), here) << "allowed: " << allowed;
    EXPECT_NE(e.expected(), e.found());
    EXPECT_EQ(fs::path(e.path()), fs::canonical("/proc/self/exe"));
    EXPECT_NE(std::string(e.what()).find("ferry::named"), std::string::npos) << e.what();
  }
}

// The same for a library this process loaded, once rebuilt: bytes of the
// other build naming its path say which build is loaded, allowed or not.
TEST_F(ModuleLoading, BytesOfAnotherBuildOfALoadedLibrarySayWhichBuildIsLoaded) {
  ferry::allow_module(plugin);
  ASSERT_EQ(ferry::loads<int_fn>(bytes_from_plugin(plugin, "lambda"))(1), 2);  // loaded now
  const std::string loaded = ferry::inspect(bytes_from_plugin(plugin, "lambda")).modules.at(0).build_id;
  const std::string other =
      ferry::testing::with_module_path(bytes_from_plugin(plugin_variant, "lambda"), fs::canonical(plugin).string());
  for (const bool allowed : {true, false}) {
    if (!allowed) ferry::clear_allowed_modules();
    const auto e = mismatch_loading(other);
    EXPECT_EQ(e.found(), loaded) << "allowed: " << allowed;
    EXPECT_NE(e.expected(), e.found());
  }
}

TEST_F(ModuleLoading, DotDotDoesNotLeaveTheAllowedDirectory) {
  const fs::path allowed = plugin.parent_path() / "variant";
  ferry::allow_module(allowed);
  // ".../variant/../libferry_test_plugin.so" resolves outside "variant".
  const std::string path = (allowed / ".." / plugin.filename()).string();
  const std::string bytes = with_module_path(bytes_from_plugin(plugin, "lambda"), path);
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::build_id_mismatch_error)
      << "only the same-named file inside the allowed directory may be considered";
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
}

TEST_F(ModuleLoading, SymlinkDoesNotLeaveTheAllowedDirectory) {
  const fs::path dir = fs::temp_directory_path() / ("ferry_symlink_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::create_symlink(fs::canonical(plugin), dir / plugin.filename());
  ferry::allow_module(dir);
  const std::string bytes = with_module_path(bytes_from_plugin(plugin, "lambda"),
                                             (dir / plugin.filename()).string());
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::module_not_allowed_error);
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
  fs::remove_all(dir);
}

TEST_F(ModuleLoading, MissingModuleIsNotFound) {
  const std::string bytes =
      with_module_path(bytes_from_plugin(plugin, "lambda"), "/nonexistent/libferry_gone.so");
  try {
    (void)ferry::loads<int_fn>(bytes);
    FAIL();
  } catch (const ferry::module_not_found_error& e) {
    EXPECT_EQ(e.path(), "/nonexistent/libferry_gone.so");
  }
}

TEST_F(ModuleLoading, NonElfFileIsALoadError) {
  const fs::path not_elf = FERRY_TEST_NOT_ELF;
  ferry::allow_module(not_elf.parent_path());
  const std::string bytes = with_module_path(bytes_from_plugin(plugin, "lambda"), not_elf.string());
  try {
    (void)ferry::loads<int_fn>(bytes);
    FAIL();
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find("not an ELF file"), std::string::npos) << e.what();
  }
}

TEST_F(ModuleLoading, AMissingDependencyIsALoadErrorWithTheLoadersMessage) {
  // A copy of the plugin, same build, without the library it links beside it.
  const fs::path dependent = FERRY_TEST_DEPENDENT_PLUGIN;
  const fs::path dir = fs::temp_directory_path() / ("ferry_dependent_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(dependent, dir / dependent.filename(), fs::copy_options::overwrite_existing);
  ferry::allow_module(dir);
  const std::string bytes =
      with_module_path(bytes_from_plugin(dependent, "lambda"), (dir / dependent.filename()).string());
  try {
    (void)ferry::loads<int_fn>(bytes);
    FAIL() << "expected module_load_error";
  } catch (const ferry::module_load_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(fs::path(e.path()), fs::canonical(dir / dependent.filename()));
    EXPECT_NE(what.find("libferry_dependency.so: cannot open shared object file"), std::string::npos) << what;
    EXPECT_EQ(what.find("boost::dll"), std::string::npos) << what;
  }
  fs::remove_all(dir);
}

TEST_F(ModuleLoading, AnotherProgramsExecutableIsALoadError) {
  // A PIE program (any will do: this toolchain builds PIE by default).
  const fs::path program = FERRY_TEST_PROGRAM;
  ferry::allow_module(program.parent_path());
  const std::string bytes = with_module_path(bytes_from_plugin(plugin, "lambda"), program.string());
  try {
    (void)ferry::loads<int_fn>(bytes);
    FAIL();
  } catch (const ferry::module_load_error& e) {
    EXPECT_NE(std::string(e.what()).find("executable of another program"), std::string::npos)
        << e.what();
  }
}

TEST_F(ModuleLoading, NamedCallableLoadsFromAnotherBuild) {
  // Made by the variant build; only the other build is allowed. A keyed
  // callable would be a build-id mismatch; a named one is found by name.
  const std::string named = bytes_from_plugin(plugin_variant, "named");
  const std::string keyed = bytes_from_plugin(plugin_variant, "lambda");
  const fs::path dir = fs::temp_directory_path() / ("ferry_named_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(plugin, dir / plugin.filename(), fs::copy_options::overwrite_existing);
  ferry::allow_module(dir);
  EXPECT_THROW((void)ferry::loads<int_fn>(keyed), ferry::build_id_mismatch_error);
  EXPECT_EQ(ferry::loads<int_fn>(named)(1), 11);  // the allowed build's code: + 10
  EXPECT_THROW((void)ferry::loads<ferry::function<long(int)>>(named), ferry::type_mismatch_error);
  fs::remove_all(dir);
}

// ferry::closure(ferry::named<"n">(fn), captures...) takes fn's name: its
// bytes load in another build, the captures read back as they were written.
TEST_F(ModuleLoading, AClosureOfANamedFunctionLoadsFromAnotherBuild) {
  const std::string bytes = bytes_from_plugin(plugin_variant, "named_closure");
  EXPECT_EQ(ferry::inspect(bytes).kind, "named");
  const fs::path dir = fs::temp_directory_path() / ("ferry_named_closure_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(plugin, dir / plugin.filename(), fs::copy_options::overwrite_existing);
  ferry::allow_module(dir);
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 101);  // the allowed build's code: x + 100 * 1
  fs::remove_all(dir);
}

TEST_F(ModuleLoading, NamedCallableStillObeysThePolicy) {
  const std::string named = bytes_from_plugin(plugin, "named");
  EXPECT_THROW((void)ferry::loads<int_fn>(named), ferry::module_not_allowed_error);
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
}

TEST(ModuleIdentity, ModuleWithoutBuildIdCannotShip) {
  void* handle = dlopen(FERRY_TEST_PLUGIN_NO_BUILD_ID, RTLD_NOW);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto make = reinterpret_cast<std::string* (*)(const char*)>(dlsym(handle, "ferry_test_make"));
  ASSERT_NE(make, nullptr);
  try {
    delete make("lambda");
    FAIL() << "expected not_shippable_error";
  } catch (const ferry::not_shippable_error& e) {
    EXPECT_NE(std::string(e.what()).find("no GNU build-id"), std::string::npos) << e.what();
  }
}

// No code of a refused module runs: its static initializer would leave a
// marker file, and none appears when the policy refuses it (not allowed, or
// another build under the allowed name). Allowed, it runs: the marker works.
TEST_F(ModuleLoading, RefusedModuleNeverRuns) {
  const fs::path module = FERRY_TEST_MARKER_MODULE;
  const fs::path marker = fs::temp_directory_path() / ("ferry_marker_" + std::to_string(getpid()));
  ::setenv("FERRY_TEST_MARKER", marker.c_str(), 1);
  const std::string bytes = bytes_from_plugin(module, "lambda");  // the child ran it
  fs::remove(marker);

  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::module_not_allowed_error);
  EXPECT_FALSE(fs::exists(marker)) << "a module that is not allowed ran its initializer";

  // Another build under the same name in an allowed directory.
  const fs::path dir = fs::temp_directory_path() / ("ferry_marker_dir_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(plugin, dir / module.filename(), fs::copy_options::overwrite_existing);
  ferry::allow_module(dir);
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::build_id_mismatch_error);
  EXPECT_FALSE(fs::exists(marker)) << "a module of another build ran its initializer";
  EXPECT_FALSE(is_mapped(module.filename().string()));

  ferry::allow_module(module.parent_path());
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 101);
  EXPECT_TRUE(fs::exists(marker));
  fs::remove(marker);
  fs::remove_all(dir);
  ::unsetenv("FERRY_TEST_MARKER");
}

// Signed bytes that do not verify are refused before anything in them is
// read: even an allowed module they name is not opened.
TEST_F(ModuleLoading, SignedBytesThatDoNotVerifyNeverLoadAModule) {
  const fs::path module = FERRY_TEST_MARKER_MODULE;
  const fs::path marker = fs::temp_directory_path() / ("ferry_marker_signed_" + std::to_string(getpid()));
  ::setenv("FERRY_TEST_MARKER", marker.c_str(), 1);
  std::string bytes = bytes_from_plugin(module, "lambda");  // the child ran it
  fs::remove(marker);
  const ferry::signing_key key = ferry::signing_key::generate();
  ferry::detail::sign_frame(bytes, key);
  ferry::allow_module(module.parent_path());

  EXPECT_THROW((void)ferry::loads<int_fn>(bytes, ferry::signing_key::generate()),
               ferry::authentication_error);
  EXPECT_FALSE(fs::exists(marker)) << "bytes under another key loaded their module";
  EXPECT_FALSE(is_mapped(module.filename().string()));

  EXPECT_EQ(ferry::loads<int_fn>(bytes, key)(1), 101);
  EXPECT_TRUE(fs::exists(marker));
  fs::remove(marker);
  ::unsetenv("FERRY_TEST_MARKER");
}

// A key trusted for code lets the bytes signed with it load the modules they
// name, without the allow-list but with the build-id check; unsigned bytes
// and bytes under another key still need the allow-list.
TEST_F(ModuleLoading, BytesSignedWithATrustedKeyLoadTheirModule) {
  const fs::path module = FERRY_TEST_MARKER_MODULE;
  const fs::path marker = fs::temp_directory_path() / ("ferry_marker_trusted_" + std::to_string(getpid()));
  ::setenv("FERRY_TEST_MARKER", marker.c_str(), 1);
  const std::string unsigned_bytes = bytes_from_plugin(module, "lambda");  // the child ran it
  fs::remove(marker);
  const ferry::signing_key trusted = ferry::signing_key::generate();
  const ferry::signing_key other = ferry::signing_key::generate();
  ferry::trust_signed_code(trusted);
  std::string under_other = unsigned_bytes;
  ferry::detail::sign_frame(under_other, other);
  std::string under_trusted = unsigned_bytes;
  ferry::detail::sign_frame(under_trusted, trusted);

  EXPECT_THROW((void)ferry::loads<int_fn>(unsigned_bytes), ferry::module_not_allowed_error);
  EXPECT_THROW((void)ferry::loads<int_fn>(under_other, other), ferry::module_not_allowed_error);
  EXPECT_FALSE(fs::exists(marker)) << "bytes that are not trusted loaded their module";
  EXPECT_FALSE(is_mapped(module.filename().string()));

  EXPECT_EQ(ferry::loads<int_fn>(under_trusted, trusted)(1), 101);
  EXPECT_TRUE(fs::exists(marker));
  fs::remove(marker);
  ::unsetenv("FERRY_TEST_MARKER");
}

TEST_F(ModuleLoading, TrustedKeyStillRefusesAnotherBuild) {
  // The bytes name a copy of the plugin; the copy is then replaced by
  // another build of it.
  const fs::path dir = fs::temp_directory_path() / ("ferry_trusted_swap_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path copy = dir / plugin.filename();
  fs::copy_file(plugin, copy, fs::copy_options::overwrite_existing);
  std::string bytes = bytes_from_plugin(copy, "lambda");
  fs::copy_file(plugin_variant, copy, fs::copy_options::overwrite_existing);
  const ferry::signing_key key = ferry::signing_key::generate();
  ferry::trust_signed_code(key);
  ferry::detail::sign_frame(bytes, key);
  try {
    (void)ferry::loads<int_fn>(bytes, key);
    ADD_FAILURE() << "another build was loaded";
  } catch (const ferry::build_id_mismatch_error& e) {
    EXPECT_NE(e.expected(), e.found());
  }
  EXPECT_FALSE(is_mapped(copy.string()));
  fs::remove_all(dir);
}

TEST_F(ModuleLoading, ClearingThePolicyForgetsTrustedKeys) {
  std::string bytes = bytes_from_plugin(plugin, "lambda");
  const ferry::signing_key key = ferry::signing_key::generate();
  ferry::detail::sign_frame(bytes, key);
  ferry::trust_signed_code(key);
  ferry::clear_allowed_modules();
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes, key), ferry::module_not_allowed_error);
}

// --- Found by build-id in search directories ---

namespace {

// A directory of the test's own, removed afterwards.
struct scratch {
  fs::path path;
  explicit scratch(const std::string& name)
      : path(fs::temp_directory_path() / ("ferry_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~scratch() { fs::remove_all(path); }
};

// Bytes of the plugin's lambda (x + 1), made by a child that loads the
// plugin from a copy at `recorded`.
std::string bytes_recorded_at(const fs::path& recorded) {
  fs::create_directories(recorded.parent_path());
  fs::copy_file(plugin, recorded, fs::copy_options::overwrite_existing);
  return bytes_from_plugin(recorded, "lambda");
}

std::string build_id_hex(const fs::path& file) {
  // The build-id as the bytes record it: read from a dump made with it.
  const std::string bytes = bytes_from_plugin(file, "lambda");
  const auto l = ferry::testing::layout_of(bytes);
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes.substr(l.build_id_at, l.build_id_size)) {
    hex.push_back(digits[c >> 4]);
    hex.push_back(digits[c & 15]);
  }
  return hex;
}

}  // namespace

TEST_F(ModuleLoading, SameBuildAtAnotherPathIsFoundByItsBuildId) {
  scratch sender("sender_prefix"), receiver("receiver_prefix");
  const std::string bytes = bytes_recorded_at(sender.path / "lib" / plugin.filename());
  fs::remove_all(sender.path);  // not at the recorded path here
  fs::copy_file(plugin, receiver.path / "renamed.so");
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::module_not_found_error);
  ferry::add_module_search_path(receiver.path);
  EXPECT_EQ(ferry::module_search_paths(), std::vector<fs::path>{fs::canonical(receiver.path)});
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
  EXPECT_TRUE(is_mapped("renamed.so"));
}

TEST_F(ModuleLoading, RecordedPathHoldingAnotherBuildFallsBackToTheSearch) {
  scratch sender("other_build"), receiver("same_build");
  const fs::path recorded = sender.path / plugin.filename();
  const std::string bytes = bytes_recorded_at(recorded);
  fs::copy_file(plugin_variant, recorded, fs::copy_options::overwrite_existing);
  ferry::allow_module(sender.path);
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::build_id_mismatch_error);
  fs::copy_file(plugin, receiver.path / "the_right_one.so");
  ferry::add_module_search_path(receiver.path);
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
  EXPECT_TRUE(is_mapped("the_right_one.so"));
  EXPECT_FALSE(is_mapped(recorded.string()));
}

TEST_F(ModuleLoading, DebuginfodLayoutIsSearched) {
  scratch sender("debuginfod_sender"), store("debuginfod_store");
  const std::string bytes = bytes_recorded_at(sender.path / plugin.filename());
  fs::remove_all(sender.path);
  const std::string hex = build_id_hex(plugin);
  fs::create_directories(store.path / "files");
  fs::copy_file(plugin, store.path / "files" / "libplugin-1.0.so");
  fs::create_directories(store.path / ".build-id" / hex.substr(0, 2));
  fs::create_symlink("../../files/libplugin-1.0.so", store.path / ".build-id" / hex.substr(0, 2) / hex.substr(2));
  ferry::add_module_search_path(store.path);
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
  EXPECT_TRUE(is_mapped("libplugin-1.0.so"));
}

TEST_F(ModuleLoading, SymlinkOutOfASearchDirectoryIsNotFollowed) {
  scratch sender("symlink_sender"), outside("symlink_outside"), store("symlink_store");
  const std::string bytes = bytes_recorded_at(sender.path / plugin.filename());
  fs::remove_all(sender.path);
  fs::copy_file(plugin, outside.path / "escaped.so");
  const std::string hex = build_id_hex(plugin);
  fs::create_symlink(outside.path / "escaped.so", store.path / "link.so");
  fs::create_directories(store.path / ".build-id" / hex.substr(0, 2));
  fs::create_symlink(outside.path / "escaped.so", store.path / ".build-id" / hex.substr(0, 2) / hex.substr(2));
  ferry::add_module_search_path(store.path);
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::module_not_found_error);
  EXPECT_FALSE(is_mapped("escaped.so"));
}

TEST_F(ModuleLoading, FileAddedToASearchDirectoryLaterIsFound) {
  scratch sender("late_sender"), store("late_store");
  const std::string bytes = bytes_recorded_at(sender.path / plugin.filename());
  fs::remove_all(sender.path);
  fs::copy_file(plugin_variant, store.path / "another_build.so");
  ferry::add_module_search_path(store.path);
  EXPECT_THROW((void)ferry::loads<int_fn>(bytes), ferry::module_not_found_error);  // indexed now
  fs::copy_file(plugin, store.path / "arrived_later.so");
  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
}

TEST_F(ModuleLoading, SearchPathMustBeADirectory) {
  EXPECT_THROW(ferry::add_module_search_path(plugin), ferry::error);
  EXPECT_THROW(ferry::add_module_search_path("/no/such/directory"), ferry::error);
}

// --- ferry::inspect: what loading would need, loading nothing ---

TEST_F(ModuleLoading, InspectSaysWhatLoadingWouldNeedAndLoadsNothing) {
  const std::string bytes = bytes_from_plugin(plugin, "lambda");
  ferry::inspection what = ferry::inspect(bytes);
  EXPECT_EQ(what.kind, "keyed");
  EXPECT_FALSE(what.is_signed);
  ASSERT_EQ(what.modules.size(), 1u);
  EXPECT_EQ(what.modules[0].path, plugin.string());
  EXPECT_EQ(what.modules[0].build_id, build_id_hex(plugin));
  EXPECT_TRUE(what.modules[0].holds_function);
  EXPECT_EQ(what.modules[0].status, ferry::inspection::module_status::refused);
  EXPECT_NE(what.modules[0].refusal.find("allow_module"), std::string::npos) << what.modules[0].refusal;
  EXPECT_EQ(what.signature, "");  // not known before the module is loaded

  ferry::allow_module(plugin.parent_path());
  what = ferry::inspect(bytes);
  EXPECT_EQ(what.modules.at(0).status, ferry::inspection::module_status::loadable);
  EXPECT_EQ(what.modules.at(0).file, fs::canonical(plugin).string());
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so")) << "inspect loaded the module";

  EXPECT_EQ(ferry::loads<int_fn>(bytes)(1), 2);
  what = ferry::inspect(bytes);
  EXPECT_EQ(what.modules.at(0).status, ferry::inspection::module_status::loaded);
  EXPECT_EQ(what.signature, "int (int)");
  EXPECT_NE(ferry::to_string(what).find("status: loaded"), std::string::npos) << ferry::to_string(what);
}

// The function's state names more modules (here a function loaded from the
// plugin, captured by a closure of this program): inspect lists each.
TEST_F(ModuleLoading, InspectListsTheModulesTheStateNames) {
  ferry::allow_module(plugin.parent_path());
  const int_fn inner = ferry::loads<int_fn>(bytes_from_plugin(plugin, "lambda"));
  const int_fn outer = ferry::closure([](const int_fn& g, int x) { return g(x) * 10; }, inner);
  const ferry::inspection what = ferry::inspect(ferry::dumps(outer));
  ASSERT_EQ(what.modules.size(), 2u);
  EXPECT_TRUE(what.modules[0].holds_function);
  EXPECT_EQ(fs::path(what.modules[0].path), fs::canonical("/proc/self/exe"));
  EXPECT_FALSE(what.modules[1].holds_function);
  EXPECT_EQ(fs::path(what.modules[1].path).filename(), plugin.filename());
  EXPECT_EQ(what.modules[1].status, ferry::inspection::module_status::loaded);
  EXPECT_NE(ferry::to_string(what).find("holds: code the function's state names"), std::string::npos)
      << ferry::to_string(what);
}

TEST_F(ModuleLoading, InspectNamesTheBuildThatWouldBeRefused) {
  const std::string bytes = bytes_from_plugin(plugin_variant, "lambda");
  scratch dir("inspect_other_build");
  fs::copy_file(plugin, dir.path / plugin.filename());
  ferry::allow_module(dir.path);
  const ferry::inspection what = ferry::inspect(bytes);
  ASSERT_EQ(what.modules.size(), 1u);
  EXPECT_EQ(what.modules[0].status, ferry::inspection::module_status::refused);
  EXPECT_NE(what.modules[0].refusal.find("was looked for at"), std::string::npos) << what.modules[0].refusal;
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
}

TEST_F(ModuleLoading, InspectReadsNamedAndSignedFunctions) {
  std::string bytes = bytes_from_plugin(plugin, "named");
  ferry::inspection what = ferry::inspect(bytes);
  EXPECT_EQ(what.kind, "named");
  EXPECT_EQ(what.stable_name, "test.plugin.add_ten");
  ASSERT_EQ(what.modules.size(), 1u);
  EXPECT_EQ(what.modules[0].build_id, build_id_hex(plugin));
  EXPECT_EQ(what.modules[0].status, ferry::inspection::module_status::refused);
  ferry::detail::sign_frame(bytes, ferry::signing_key::generate());
  what = ferry::inspect(bytes);
  EXPECT_TRUE(what.is_signed);
  EXPECT_EQ(what.kind, "named");
  EXPECT_EQ(ferry::inspect(ferry::dumps(int_fn{})).kind, "empty");
  EXPECT_THROW((void)ferry::inspect("not ferry bytes at all"), ferry::format_error);
  EXPECT_FALSE(is_mapped("libferry_test_plugin.so"));
}

TEST(ModuleIdentity, ThisExecutableIsRecordedByItsRealPath) {
  ferry::function<int(int)> f = [](int x) { return x; };
  const std::string bytes = ferry::dumps(f);
  const auto l = ferry::testing::layout_of(bytes);
  const std::string path = bytes.substr(l.path_at, l.path_size);
  EXPECT_EQ(fs::path(path), fs::canonical("/proc/self/exe"));
  EXPECT_EQ(l.build_id_size, 20u);  // sha1 build-id
}

TEST(ModulePolicyApi, AllowMissingPathThrows) {
  EXPECT_THROW(ferry::allow_module("/nonexistent/dir"), ferry::error);
}

TEST(ModulePolicyApi, AllowedModulesAreCanonical) {
  ferry::clear_allowed_modules();
  ferry::allow_module(plugin.parent_path() / "variant" / "..");
  ferry::allow_module(plugin.parent_path());  // the same, once
  const auto allowed = ferry::allowed_modules();
  ASSERT_EQ(allowed.size(), 1u);
  EXPECT_EQ(allowed[0], fs::canonical(plugin.parent_path()));
  ferry::clear_allowed_modules();
}
