// `hbm.scheduler: fcfs`: the first-come-first-served engine of models/hbm_timing.h behind the
// controller interface (the simpler model, kept for comparison).
#pragma once

#include "models/hbm/controller.h"
#include "models/hbm_timing.h"

namespace npusim::models::hbm {

class FcfsController final : public Controller {
 public:
  explicit FcfsController(const HbmConfig& c) : timing_(c) {}
  uint64_t schedule(uint64_t offset, uint64_t len, bool write, uint64_t arrival_cycles,
                    RowCounts& rows) override {
    return timing_.schedule(offset, len, write, arrival_cycles, rows);
  }
  uint64_t last_admit() const override { return timing_.last_admit(); }
  uint64_t refreshes() const override { return timing_.refreshes(); }
  const HbmAddressMap& address_map() const override { return timing_.address_map(); }
  std::vector<UnitActivity> activity(uint64_t end_cycles,
                                     ActivitySeries* series = nullptr) const override;
  const HbmTiming& timing() const { return timing_; }

 private:
  HbmTiming timing_;
};

}  // namespace npusim::models::hbm
