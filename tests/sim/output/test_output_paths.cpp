// Every output file goes through sim/output/output_paths: a temporary file beside the
// destination renamed into place, special files written in place and never removed, errors
// naming the option, the path and the reason. A test that needs a full disk makes its own
// device node (root only: the test says so and passes without checking when it cannot).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "sim/output/chrome_trace.h"
#include "sim/output/output_paths.h"
#include "sim/output/vcd_writer.h"

using namespace npusim::sim;
namespace fs = std::filesystem;

namespace {

// A private folder for one test, removed with everything in it.
struct Folder {
  fs::path dir;
  Folder() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("npusim_out_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
  // Files in the folder whose name marks them as npusim's temporary files.
  int temporaries() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().find(".npusim-") != std::string::npos) ++n;
    return n;
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A device node like /dev/full (1, 7) or /dev/null (1, 3) in the test's own folder; false when
// this process may not make one (not root).
bool make_device(const std::string& path, unsigned minor) {
  return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("output: a new file appears only when complete, through a temporary file beside it") {
  Folder d;
  const std::string p = d / "r.json";
  OutputFile f({"--report", p, {}});
  f.write("{\"a\":");
  f.flush();
  CHECK(!fs::exists(p));  // not yet: a reader never sees half a file
  CHECK(fs::path(f.writing_path()).parent_path() == d.dir);
  CHECK(d.temporaries() == 1);
  f.write("1}\n");
  f.commit();
  CHECK(slurp(p) == "{\"a\":1}\n");
  CHECK(d.temporaries() == 0);
  // A new file gets the usual permissions (not the temporary file's private 0600).
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 0044) == 0044);
}

TEST_CASE("output: an existing file is replaced on commit and keeps its permissions") {
  Folder d;
  const std::string p = d / "r.json";
  put(p, "old");
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_output({"--report", p, {}}, "new");
  CHECK(slurp(p) == "new");
  CHECK(fs::status(p).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}

TEST_CASE("output: not committed, the destination keeps what it held and the temporary file goes") {
  Folder d;
  const std::string p = d / "r.json";
  put(p, "old");
  {
    OutputFile f({"--report", p, {}});
    f.write("half");
  }
  CHECK(slurp(p) == "old");
  CHECK(d.temporaries() == 0);
}

TEST_CASE("output: through a symlink the link stays and the file it points to is written") {
  Folder d;
  put(d / "target.json", "old");
  fs::create_symlink("target.json", d / "link.json");
  write_output({"--trace", d / "link.json", {}}, "new");
  CHECK(fs::is_symlink(d / "link.json"));
  CHECK(slurp(d / "target.json") == "new");
  // A dangling link: the file it names is made, the link is kept.
  fs::create_symlink("made.json", d / "dangling.json");
  write_output({"--trace", d / "dangling.json", {}}, "x");
  CHECK(fs::is_symlink(d / "dangling.json"));
  CHECK(slurp(d / "made.json") == "x");
  CHECK(d.temporaries() == 0);
}

TEST_CASE("output: a directory, a missing folder and a link loop are errors naming option and path") {
  Folder d;
  CHECK(error_of([&] { OutputFile f({"--vcd", d.dir.string(), {}}); }) ==
        "--vcd: is a directory, not a file (at '" + d.dir.string() + "')");
  CHECK(error_of([&] { OutputFile f({"--vcd", d / "no/x.vcd", {}}); })
            .find("--vcd: cannot be written: the folder '" + (d / "no") + "' does not exist") == 0);
  fs::create_symlink("b", d / "a");
  fs::create_symlink("a", d / "b");
  CHECK(error_of([&] { OutputFile f({"--vcd", d / "a", {}}); }).find("Too many levels of symbolic links") !=
        std::string::npos);
  CHECK(fs::is_symlink(d / "a"));
}

TEST_CASE("output: a full device is written in place, fails with option, path and reason, and survives") {
  Folder d;
  const std::string full = d / "full";
  if (!make_device(full, 7)) {
    WARN("not root: no private device node; the full-device checks are skipped");
    return;
  }
  OutputFile f({"--trace", full, {}});
  CHECK(f.direct());
  CHECK(f.writing_path() == full);
  f.write(std::string(100, 'x'));  // buffered: the error comes at commit
  const std::string e = error_of([&] { f.commit(); });
  CHECK(e == "--trace: cannot be written: No space left on device (at '" + full + "')");
  CHECK(is_char_device(full));
  // The trace writer: the error at close, the device intact.
  {
    ChromeTrace t(OutputPath{"--trace", full, {}});
    const int k = t.track("p", "t");
    for (int i = 0; i < 5000; ++i) t.slice(k, "s", i, 1);
    CHECK(error_of([&] { t.close(); }).find("--trace: cannot be written: No space left on device") == 0);
  }
  {
    VcdWriter v(OutputPath{"--vcd", full, {}});
    const auto s = v.integer("a.b", 8);
    for (int i = 0; i < 20000; ++i) v.change(static_cast<uint64_t>(i), s, i % 256);
    CHECK(error_of([&] { v.close(); }).find("--vcd: cannot be written: No space left on device") == 0);
  }
  CHECK(is_char_device(full));
  CHECK(d.temporaries() == 0);
}

TEST_CASE("output: a write error on a full device through a symlink keeps the link and the device") {
  Folder d;
  const std::string full = d / "full";
  if (!make_device(full, 7)) {
    WARN("not root: no private device node; skipped");
    return;
  }
  fs::create_symlink("full", d / "link.json");
  CHECK(error_of([&] { write_output({"--report", d / "link.json", {}}, std::string(1 << 16, 'x')); })
            .find("--report: cannot be written: No space left on device") == 0);
  CHECK(fs::is_symlink(d / "link.json"));
  CHECK(is_char_device(full));
}

TEST_CASE("output: a FIFO is written in place, read by its reader, and stays a FIFO") {
  Folder d;
  const std::string fifo = d / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_output({"--trace", fifo, {}}, "through the pipe");
  reader.join();
  CHECK(got == "through the pipe");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("output: the check before a run creates nothing and opens no FIFO") {
  Folder d;
  const std::string fifo = d / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_symlink("nowhere.json", d / "dangling.json");
  check_output_paths({{"--trace", d / "t.json", {}}, {"--vcd", fifo, {}}, {"--report", d / "dangling.json", {}}});
  CHECK(!fs::exists(d / "t.json"));
  CHECK(!fs::exists(d / "nowhere.json"));
  CHECK(fs::is_symlink(d / "dangling.json"));
  CHECK(d.temporaries() == 0);
  CHECK(error_of([&] {
          check_output_paths({{"--trace", d / "a.json", {}}, {"--report", d / "x/../a.json", {}}});
        }).find("--report: the same file as --trace") == 0);
}

TEST_CASE("output: parked files are published or removed by the command's decision") {
  Folder d;
  put(d / "a.json", "old a");
  {
    OutputFile a({"--trace", d / "a.json", {}});
    a.write("new a");
    a.park();
    OutputFile b({"--vcd", d / "b.vcd", {}});
    b.write("new b");
    b.park();
  }
  CHECK(slurp(d / "a.json") == "old a");
  discard_parked_outputs();  // bad input: nothing ran
  CHECK(slurp(d / "a.json") == "old a");
  CHECK(!fs::exists(d / "b.vcd"));
  CHECK(d.temporaries() == 0);
  {
    OutputFile a({"--trace", d / "a.json", {}});
    a.write("new a");
    a.park();
  }
  CHECK(publish_parked_outputs().empty());
  CHECK(slurp(d / "a.json") == "new a");
}

TEST_CASE("output: a trace destroyed on an exception's way out is complete but parked") {
  Folder d;
  const std::string p = d / "t.json";
  try {
    ChromeTrace t(OutputPath{"--trace", p, {}});
    t.slice(t.track("p", "t"), "s", 0, 1);
    throw std::runtime_error("bad input found after the trace was opened");
  } catch (const std::runtime_error&) {
  }
  CHECK(!fs::exists(p));
  CHECK(d.temporaries() == 1);
  CHECK(publish_parked_outputs().empty());
  REQUIRE(fs::exists(p));
  CHECK(slurp(p).find("\"otherData\"") != std::string::npos);  // the terminator: valid JSON
}

TEST_CASE("output: the signal path removes the temporary files of open outputs") {
  Folder d;
  OutputFile f({"--trace", d / "t.json", {}});
  f.write("partial");
  CHECK(d.temporaries() == 1);
  remove_temporary_outputs_now();
  CHECK(d.temporaries() == 0);
  CHECK(!fs::exists(d / "t.json"));
}

TEST_CASE("output: a scratch folder goes with its files") {
  std::string dir, file;
  {
    ScratchDir s({"--html", "r.html", {}});
    dir = s.dir();
    file = s.file("trace.json");
    put(file, "{}");
    CHECK(fs::is_directory(dir));
  }
  CHECK(!fs::exists(file));
  CHECK(!fs::exists(dir));
}
