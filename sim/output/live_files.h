// The output files (traces, VCD) of one kind that are open now, so that a fatal path can close
// them all and nothing written so far is lost (ChromeTrace::close_all_open,
// VcdWriter::close_all_open).
#pragma once

#include <exception>
#include <mutex>
#include <set>

namespace npusim::sim {

template <class Writer>
class LiveFiles {
 public:
  static void add(Writer* w) {
    std::lock_guard<std::mutex> lock(state().mu);
    state().live.insert(w);
  }
  static void remove(Writer* w) {
    std::lock_guard<std::mutex> lock(state().mu);
    state().live.erase(w);
  }
  // Closes every live writer; an error closing one does not stop the others.
  static void close_all() {
    std::lock_guard<std::mutex> lock(state().mu);
    for (Writer* w : state().live) {
      try {
        w->close();
      } catch (const std::exception&) {
        // Fatal path: keep closing the others.
      }
    }
  }

 private:
  struct State {
    std::mutex mu;
    std::set<Writer*> live;
  };
  static State& state() {
    static State s;
    return s;
  }
};

}  // namespace npusim::sim
