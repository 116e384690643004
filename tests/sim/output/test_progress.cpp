// The progress line: percent and ETA with a total, simulated time without; nothing on a pipe
// unless asked; rate-limited redraws.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "sim/output/progress.h"

using namespace npusim::sim;

namespace {

struct Capture {
  std::FILE* f = std::tmpfile();
  ~Capture() { std::fclose(f); }
  std::string text() const {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    return s;
  }
};

// Calls update() often enough that the clock is looked at.
void tick(Progress& p, uint64_t done, double sim_ns = -1) {
  for (int i = 0; i < 64; ++i) p.update(done, sim_ns);
}

}  // namespace

TEST_CASE("progress: percent and ETA on a terminal, redrawn in place", "[progress]") {
  Capture c;
  double now = 100;
  {
    Progress p("run x.yaml", Progress::Mode::kAuto, c.f, 1, [&] { return now; });
    REQUIRE(p.enabled());
    p.set_total(1000, "steps");
    now = 102;  // 2 s for 250 steps: 6 s to go
    tick(p, 250);
    CHECK(p.line() == "run x.yaml:  25% (250/1000 steps), ETA 6 s [2.0 s]");
    now = 102.05;  // within 100 ms: no redraw
    tick(p, 260);
    now = 104;
    tick(p, 500);
  }
  const std::string out = c.text();
  CHECK(out == "\rrun x.yaml:  25% (250/1000 steps), ETA 6 s [2.0 s]\x1b[K"
               "\rrun x.yaml:  50% (500/1000 steps), ETA 4 s [4.0 s]\x1b[K"
               "\rrun x.yaml:  50% (500/1000 steps), ETA 4 s [4.0 s]\x1b[K\n");
}

TEST_CASE("progress: simulated time when the total is not known", "[progress]") {
  Capture c;
  double now = 0;
  Progress p("traffic", Progress::Mode::kAuto, c.f, 1, [&] { return now; });
  now = 1.5;
  tick(p, 0, 12345.0);
  CHECK(p.line() == "traffic: simulated 12.3 us [1.5 s]");
  p.set_total(0, "requests");
  tick(p, 40, 2.5e6);
  CHECK(p.line() == "traffic: 40 requests, simulated 2.5 ms [1.5 s]");
}

TEST_CASE("progress: nothing on a pipe unless --progress, then whole lines", "[progress]") {
  double now = 0;
  {
    Capture c;
    {
      Progress p("run", Progress::Mode::kAuto, c.f, 0, [&] { return now; });
      CHECK_FALSE(p.enabled());
      p.set_total(10, "steps");
      now = 5;
      tick(p, 5);
    }
    CHECK(c.text().empty());
  }
  {
    Capture c;
    now = 0;
    {
      Progress p("run", Progress::Mode::kOn, c.f, 0, [&] { return now; });
      p.set_total(10, "steps");
      now = 0.5;  // a pipe gets a line at most once a second
      tick(p, 2);
      now = 2;
      tick(p, 5);
      now = 3;
    }
    CHECK(c.text() == "run:  50% (5/10 steps), ETA 2 s [2.0 s]\nrun:  50% (5/10 steps), ETA 3 s [3.0 s]\n");
  }
  {
    Capture c;
    Progress p("run", Progress::Mode::kOff, c.f, 1, [&] { return now; });
    CHECK_FALSE(p.enabled());
  }
}

TEST_CASE("progress: a command faster than one redraw leaves no line on a terminal", "[progress]") {
  Capture c;
  double now = 0;
  {
    Progress p("run", Progress::Mode::kAuto, c.f, 1, [&] { return now; });
    p.set_total(10, "steps");
    now = 0.05;
    tick(p, 10);
  }
  CHECK(c.text().empty());
}

TEST_CASE("progress: time formats", "[progress]") {
  CHECK(format_eta(0.2) == "1 s");
  CHECK(format_eta(75) == "1 min 15 s");
  CHECK(format_eta(7300) == "2 h 1 min");
  CHECK(format_sim_time(500) == "500 ns");
  CHECK(format_sim_time(1.5e9) == "1.5 s");
}
