// Running sweep points: one `npusim run` child process per point, N at a time.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/input/input_error.h"
#include "sim/tools/sweep.h"
#include "sim/tools/sweep_files.h"

extern char** environ;

namespace npusim::sim::sweep {

namespace fs = std::filesystem;

namespace {

volatile sig_atomic_t g_stop = 0;
void on_stop_signal(int sig) { g_stop = sig; }

using Clock = std::chrono::steady_clock;

struct Child {
  std::size_t index;
  Clock::time_point start;
};

// The command line of a point: `npusim run [SCENARIO] [--platform P] [--plugin L]... --set k=v...
// --report ...`.
std::vector<std::string> point_argv(const Plan& plan, const Point& p, const std::string& pdir) {
  std::vector<std::string> a{plan.npusim, "run"};
  if (p.scenario != "default") a.push_back(p.scenario);
  if (!plan.platform.empty()) a.insert(a.end(), {"--platform", plan.platform});
  for (const auto& l : plan.plugins) a.insert(a.end(), {"--plugin", l});
  for (const auto& [k, v] : p.sets) a.insert(a.end(), {"--set", k + "=" + v});
  a.insert(a.end(), {"--report", (fs::path(pdir) / kReportFile).string()});
  if (plan.trace) a.insert(a.end(), {"--trace", (fs::path(pdir) / "trace.json").string()});
  if (plan.vcd) a.insert(a.end(), {"--vcd", (fs::path(pdir) / "waves.vcd").string()});
  return a;
}

// Prepares the point's directory (its definition in, stale results out) and starts its run with
// stdout and stderr to log.txt. Returns the child's pid, or -1 with `why` set.
pid_t start_point(const Plan& plan, const Point& p, const std::string& dir, std::string& why) {
  const std::string pdir = point_dir(dir, p.index);
  std::error_code ec;
  fs::create_directories(pdir, ec);
  for (const char* f : {kStatusFile, kReportFile}) fs::remove(fs::path(pdir) / f, ec);
  write_json_file((fs::path(pdir) / kPointFile).string(), p.to_json());
  const auto args = point_argv(plan, p, pdir);
  std::vector<char*> argv;
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "SC_COPYRIGHT_MESSAGE=", 21) != 0) env_s.emplace_back(*e);
  env_s.emplace_back("SC_COPYRIGHT_MESSAGE=DISABLE");
  std::vector<char*> envp;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);

  const std::string log = (fs::path(pdir) / kLogFile).string();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  // The point's own log, in its own folder; never through a link placed there.
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // Its own process group: a terminal's Ctrl-C reaches the sweep only, which forwards it once
  // (a second signal would end the point at once, without its outputs).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // npusim ignores SIGPIPE (a write error is reported as one); the point starts with defaults.
  sigset_t deflt;
  sigemptyset(&deflt);
  sigaddset(&deflt, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &deflt);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    why = fmt::format("cannot start {}: {}", plan.npusim, std::strerror(rc));
    return -1;
  }
  return pid;
}

// The message a failed point leaves: the run's own error lines, else the fault, else the signal.
std::string point_message(const std::string& pdir, int exit_code, int sig) {
  if (sig != 0) return fmt::format("killed by signal {} ({})", sig, strsignal(sig));
  std::string msg;
  if (exit_code != 0) {  // a fault first: it is why the expectations failed
    const auto report = read_report(pdir);
    if (report && (*report)["outcome"].contains("fault") && (*report)["outcome"]["fault"].is_object()) {
      const auto& f = (*report)["outcome"]["fault"];
      auto text = [&f](const char* k, const char* dflt) {
        return f.contains(k) && f[k].is_string() ? f[k].get<std::string>() : std::string(dflt);
      };
      msg = text("kind", "fault") + ": " + text("message", "");
    }
  }
  std::ifstream log(fs::path(pdir) / kLogFile);
  for (std::string line; std::getline(log, line);)
    if (line.rfind("npusim: ", 0) == 0) {
      if (!msg.empty()) msg += "; ";
      msg += line.substr(8);
    }
  if (msg.size() > 600) msg = msg.substr(0, 597) + "...";
  return msg;
}

// Records a finished point: status.json, written last (its presence means "ran").
int finish_point(const std::string& dir, std::size_t index, int wstatus, double seconds) {
  const std::string pdir = point_dir(dir, index);
  int code = -1, sig = 0;
  if (WIFEXITED(wstatus)) code = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus)) sig = WTERMSIG(wstatus);
  nlohmann::ordered_json st{{"exit_code", code < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(code)},
                            {"signal", sig == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(sig)},
                            {"host_time_s", seconds},
                            {"message", point_message(pdir, code, sig)}};
  write_json_file((fs::path(pdir) / kStatusFile).string(), st);
  return code < 0 ? 128 + sig : code;
}

void record_start_failure(const std::string& dir, std::size_t index, const std::string& why) {
  nlohmann::ordered_json st{{"exit_code", 127}, {"signal", nullptr}, {"host_time_s", 0.0}, {"message", why}};
  write_json_file((fs::path(point_dir(dir, index)) / kStatusFile).string(), st);
}

class Progress {
 public:
  Progress(std::ostream& out, bool on, std::size_t total)
      : out_(out), on_(on), tty_(on && isatty(STDERR_FILENO)), total_(total), t0_(Clock::now()) {}
  void update(const Summary& s, std::size_t running, bool final = false) {
    if (!on_) return;
    const std::size_t done = s.ran + s.skipped;
    const auto now = Clock::now();
    const std::size_t decile = done * 10 / std::max<std::size_t>(total_, 1);
    if (final && !tty_ && printed_ == done) return;  // the last line already said it
    if (!final) {
      if (tty_ && now - last_ < std::chrono::milliseconds(100)) return;
      if (!tty_ && decile == last_decile_) return;
    }
    printed_ = done;
    last_ = now;
    last_decile_ = decile;
    const double secs = std::chrono::duration<double>(now - t0_).count();
    const double rate = secs > 0 ? static_cast<double>(s.ran) / secs : 0.0;
    std::string line = fmt::format("sweep: {}/{} points ({} ran, {} skipped, {} failed), {} running, {:.1f} points/s",
                                   done, total_, s.ran, s.skipped, s.failed, running, rate);
    if (!final && rate > 0) line += fmt::format(", {:.0f} s left", static_cast<double>(total_ - done) / rate);
    if (tty_) out_ << '\r' << line << "\x1b[K" << (final ? "\n" : "") << std::flush;
    else out_ << line << '\n' << std::flush;
  }

 private:
  std::ostream& out_;
  bool on_, tty_;
  std::size_t total_;
  Clock::time_point t0_, last_{};
  std::size_t last_decile_ = static_cast<std::size_t>(-1), printed_ = static_cast<std::size_t>(-1);
};

}  // namespace

bool point_complete(const std::string& dir, const Point& p) {
  const std::string pdir = point_dir(dir, p.index);
  const auto def = read_json_file((fs::path(pdir) / kPointFile).string());
  if (!def || *def != nlohmann::json(p.to_json())) return false;
  if (!read_json_file((fs::path(pdir) / kStatusFile).string())) return false;
  const auto report = read_report(pdir);
  return report && !report->contains("interrupted");  // an interrupted point runs again
}

Summary run_local(const Plan& plan, const std::string& dir, const LocalOptions& opt, std::ostream& log) {
  Summary s;
  s.total = plan.points.size();
  std::vector<std::size_t> todo;
  for (const auto& p : plan.points) {
    if (point_complete(dir, p)) ++s.skipped;
    else todo.push_back(p.index);
  }
  struct sigaction sa {}, old_int{}, old_term{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
  g_stop = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  Progress progress(log, opt.progress, s.total);
  std::map<pid_t, Child> running;
  std::size_t next = 0;
  bool forwarded = false;
  const unsigned jobs = std::max(1u, opt.jobs);
  auto launch = [&] {
    while (!g_stop && running.size() < jobs && next < todo.size()) {
      const Point& p = plan.points[todo[next++]];
      std::string why;
      const pid_t pid = start_point(plan, p, dir, why);
      if (pid < 0) {
        record_start_failure(dir, p.index, why);
        ++s.ran;
        ++s.failed;
        continue;
      }
      running.emplace(pid, Child{p.index, Clock::now()});
    }
  };
  while (true) {
    launch();
    if (running.empty()) break;
    int wstatus = 0;
    const pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno != EINTR) break;
      if (g_stop && !forwarded) {  // stop the running points with the same signal; those finished are kept
        for (const auto& [cp, c] : running) kill(cp, static_cast<int>(g_stop));
        forwarded = true;
      }
      continue;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const double secs = std::chrono::duration<double>(Clock::now() - it->second.start).count();
    if (g_stop && WIFSIGNALED(wstatus) && (WTERMSIG(wstatus) == SIGINT || WTERMSIG(wstatus) == SIGTERM)) {
      running.erase(it);  // ended by the stop, not by its own fault: left unrun (no status)
      ++s.missing;
      continue;
    }
    if (g_stop && WIFEXITED(wstatus) && (WEXITSTATUS(wstatus) == 128 + SIGINT || WEXITSTATUS(wstatus) == 128 + SIGTERM)) {
      // Stopped by the forwarded signal: its partial report is kept (status `interrupted`); a
      // rerun runs it again (point_complete).
      finish_point(dir, it->second.index, wstatus, secs);
      running.erase(it);
      ++s.missing;
      continue;
    }
    // The freed slot takes its next point first: the finished one's files are read and written
    // while the new one runs, not while a core waits.
    const std::size_t index = it->second.index;
    running.erase(it);
    launch();
    const int code = finish_point(dir, index, wstatus, secs);
    ++s.ran;
    if (code != 0) ++s.failed;
    progress.update(s, running.size());
  }
  progress.update(s, 0, true);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  s.missing += todo.size() - std::min(todo.size(), next);
  s.signal = static_cast<int>(g_stop);
  if (g_stop) log << fmt::format("sweep: stopped by signal {}; {} points not run (rerun to resume)\n", static_cast<int>(g_stop), s.missing);
  return s;
}

int run_point(const std::string& dir, std::size_t index) {
  Plan plan = read_plan(dir);
  plan.npusim = self_exe();  // this npusim runs the point (NPUSIM= in the Slurm scripts picks it)
  if (index >= plan.points.size())
    throw InputError((fs::path(dir) / "plan.json").string(), 0, std::to_string(index),
                     fmt::format("no such point: the sweep has points 0 to {}", plan.points.size() - 1));
  const Point& p = plan.points[index];
  if (point_complete(dir, p)) {  // a resubmitted task: keep the result
    const auto st = read_json_file((fs::path(point_dir(dir, index)) / kStatusFile).string());
    const bool known = st->is_object() && st->contains("exit_code") && (*st)["exit_code"].is_number_integer();
    const int64_t code = known ? (*st)["exit_code"].get<int64_t>() : 1;
    return code >= 0 && code <= 255 ? static_cast<int>(code) : 1;
  }
  std::string why;
  const auto t0 = Clock::now();
  const pid_t pid = start_point(plan, p, dir, why);
  if (pid < 0) {
    record_start_failure(dir, index, why);
    return 127;
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0)
    if (errno != EINTR) return 127;
  return finish_point(dir, index, wstatus, std::chrono::duration<double>(Clock::now() - t0).count());
}

}  // namespace npusim::sim::sweep
