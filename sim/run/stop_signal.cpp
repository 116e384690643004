#include "sim/run/stop_signal.h"

#include <atomic>
#include <csignal>

#include "firmware/stop_request.h"
#include "sim/output/output_paths.h"

namespace npusim::sim {

namespace {

// The flag lives in firmware/stop_request.h: firmware (the torch runtime) polls the same one.
std::atomic<int>& g_signal = fw::g_stop_request;
int g_depth = 0;
struct sigaction g_old_int {}, g_old_term {};

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  if (g_signal.compare_exchange_strong(none, sig)) return;
  // A second signal: end at once, with the default action of this signal (the shell sees it).
  // The outputs being written are temporary files of ours, incomplete: removed, so that every
  // destination keeps what it held before the run.
  remove_temporary_outputs_now();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

StopSignals::StopSignals() {
  if (g_depth++ > 0) return;
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // writes of the outputs go on after the handler
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignals::~StopSignals() {
  if (--g_depth > 0) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int stop_signal() { return g_signal.load(std::memory_order_relaxed); }

const char* stop_signal_name() {
  switch (stop_signal()) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "";
  }
}

int stop_exit_code() { return stop_signal() ? 128 + stop_signal() : 0; }

}  // namespace npusim::sim
