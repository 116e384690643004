// Loading a plugin library of torch ops (runtime.h load_plugin): `npusim run --plugin` and the
// check of `npusim op build`.
//
// A library's static initialisers are the user's code, and they run inside dlopen, where
// nothing can be recovered: an exception ends in std::terminate, a crash or an exit() ends the
// process, and the loader's lock is held throughout. So they run first in a child process (a
// probe), which reports what happened: then the library is loaded here only if it loaded there.
// Its registrations are then checked: an op registered twice, a built-in op's name without
// --allow-shadowing, a NEURON_LIBRARY block that threw, or no op at all is an error naming the
// library and both places.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "firmware/torch/containment.h"
#include "firmware/torch/registry.h"
#include "firmware/torch/runtime.h"

namespace npusim::torchrt {

namespace {

constexpr int kProbeSeconds = 30;  // a static initialiser that takes longer is taken as hung
// The probe's reports to its parent start with this, apart from the library's own output.
constexpr char kTag[] = "\x1enpusim-probe:";
int g_report_fd = -1;

void report(const char* text) {
  char buf[600];
  const int n = std::snprintf(buf, sizeof buf, "%s%s\n", kTag, text);
  if (n > 0 && ::write(g_report_fd, buf, static_cast<size_t>(std::min<int>(n, sizeof buf - 1))) < 0) {
  }
}

// dlopen through a pointer the compiler cannot see through: glibc declares dlopen nothrow, so
// a try block around a direct call would have no handler, and a static initialiser's exception
// (which unwinds through dlopen) would pass it by.
void* open_library(const std::string& path) {
  void* (*volatile open)(const char*, int) = dlopen;
  return open(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
}

[[noreturn]] void quit(int status) {
  // Not exit(): nothing of the parent's (atexit handlers, stdio buffers, the leak check) runs.
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

void probe_fault(int sig, siginfo_t* si, void*) {
  char text[160];
  std::snprintf(text, sizeof text, "signal %d at address %p", sig, si->si_addr);
  report(text);
  quit(128 + sig);
}

// std::terminate in the child, or an exception out of dlopen: reported as thrown.
[[noreturn]] void probe_terminate() {
  std::string what;
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
  }
  const std::string type = current_exception_type();
  report(fmt::format("threw {}{}{}", type.empty() ? "(no exception: std::terminate)" : type, what.empty() ? "" : ": ",
                     what.substr(0, 400))
             .c_str());
  quit(70);
}

void probe_exit(const char* call, int status) {
  report(fmt::format("{}({})", call, status).c_str());
  quit(72);
}

// In the child: load the library and say how it went.
[[noreturn]] void probe_child(const std::string& path, int fd) {
  g_report_fd = fd;
  ::dup2(fd, STDOUT_FILENO);
  ::dup2(fd, STDERR_FILENO);
  set_probe_exit_hook(probe_exit);  // exit() and its kind report and end the child (containment.cpp)
  std::set_terminate(probe_terminate);
  static char altstack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = probe_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
  signal(SIGALRM, SIG_DFL);
  alarm(kProbeSeconds);
  // An exception out of a static initialiser unwinds through dlopen: caught here, it is the
  // library's (nothing of npusim's own runs on in this child).
  void* h = nullptr;
  try {
    h = open_library(path);
  } catch (...) {
    probe_terminate();
  }
  if (h == nullptr) {
    const char* why = dlerror();
    report(fmt::format("dlopen {}", why ? why : "failed").c_str());
    quit(71);
  }
  report("loaded");
  quit(0);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "a segmentation fault (SIGSEGV)";
    case SIGBUS: return "a bus error (SIGBUS)";
    case SIGFPE: return "an arithmetic exception (SIGFPE)";
    case SIGILL: return "an illegal instruction (SIGILL)";
    case SIGABRT: return "abort() (SIGABRT)";
    case SIGALRM: return "a timeout";
    default: return "a signal";
  }
}

// Runs the probe; returns "" when the library loads, else why it does not.
std::string probe(const std::string& path) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "";  // cannot probe: load as before
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return "";
  }
  if (pid == 0) {
    ::close(fds[0]);
    probe_child(path, fds[1]);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      if (out.size() > (1u << 20)) out.erase(0, out.size() - (1u << 16));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The tagged lines are the probe's; the rest is what the library printed.
  std::string tagged, printed;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(pos, end - pos);
    if (line.rfind(kTag, 0) == 0) tagged = line.substr(sizeof kTag - 1);
    else if (!line.empty()) printed += line + "\n";
    pos = end + 1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && tagged == "loaded") return "";
  std::string why;
  if (tagged.rfind("dlopen ", 0) == 0) {
    why = tagged.substr(7);
  } else if (tagged.rfind("threw ", 0) == 0) {
    why = "a static initialiser of the library threw an exception of type " + tagged.substr(6);
  } else if (tagged.rfind("signal ", 0) == 0) {
    int sig = 0;
    std::sscanf(tagged.c_str(), "signal %d", &sig);
    const auto at = tagged.find(" at address ");
    why = fmt::format("a static initialiser of the library crashed with {}{}", signal_name(sig),
                      sig == SIGSEGV || sig == SIGBUS ? tagged.substr(at == std::string::npos ? tagged.size() : at) : "");
  } else if (!tagged.empty() && tagged != "loaded") {
    why = "a static initialiser of the library called " + tagged + ", which would end npusim";
  } else if (WIFSIGNALED(status)) {
    why = fmt::format("a static initialiser of the library was ended by {}{}", signal_name(WTERMSIG(status)),
                      WTERMSIG(status) == SIGALRM ? fmt::format(": loading took more than {} s", kProbeSeconds) : "");
  } else {
    why = fmt::format("loading the library ended the process (exit status {})",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  if (!printed.empty()) {
    if (printed.size() > 1200) printed = "..." + printed.substr(printed.size() - 1200);
    why += "; it printed:\n" + printed;
    while (!why.empty() && why.back() == '\n') why.pop_back();
  }
  return why;
}

}  // namespace

PluginLoad load_plugin(const std::string& given, bool allow_shadowing) {
  // A name without a slash is a file of the working directory when one is there (dlopen would
  // look for it in the library search path only), else the name for that search.
  const bool here = given.find('/') == std::string::npos && ::access(given.c_str(), F_OK) == 0;
  const std::string path = here ? "./" + given : given;
  if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(h);
    throw std::runtime_error("the library is already loaded (named twice, or linked into npusim)");
  }
  const std::string why = probe(path);
  if (!why.empty()) throw std::runtime_error(why);
  torch::npusim_op::Loading loading;
  loading.path = given;
  loading.allow_shadowing = allow_shadowing;
  torch::npusim_op::set_loading(&loading);
  void* h = nullptr;
  try {
    h = open_library(path);
  } catch (...) {  // it loaded in the probe, and threw here: the static initialiser is not repeatable
    torch::npusim_op::set_loading(nullptr);
    const std::string type = current_exception_type();
    throw std::runtime_error("a static initialiser of the library threw an exception of type " +
                             (type.empty() ? std::string("unknown") : type));
  }
  torch::npusim_op::set_loading(nullptr);
  if (h == nullptr) {
    const char* e = dlerror();
    throw std::runtime_error(e ? e : "cannot load");
  }
  if (!loading.errors.empty()) {
    std::string all;
    for (const auto& e : loading.errors) all += (all.empty() ? "" : "; ") + e;
    throw std::runtime_error(all);
  }
  if (loading.attempts == 0)
    throw std::runtime_error("the library registers no op (a library of ops needs NEURON_LIBRARY(lib, m) { m.def(\"op\", "
                             "&shape_fn, \"kernel_fn\"); } in a shape source)");
  return PluginLoad{loading.ops, loading.warnings};
}

void check_builtin_registry() {
  const auto errors = torch::npusim_op::take_builtin_errors();
  if (errors.empty()) return;
  std::string all;
  for (const auto& e : errors) all += (all.empty() ? "" : "; ") + e;
  throw std::runtime_error(all);
}

}  // namespace npusim::torchrt
