// The HBM memory controller: the policy that turns a request (offset, length, direction,
// arrival cycle) into its completion cycle. One interface, one file per implementation, chosen
// by `hbm.scheduler` (docs/memory-config.md):
//
//   fcfs    (models/hbm/fcfs.h)    requests to a unit are served in arrival order
//   frfcfs  (models/hbm/frfcfs.h)  transaction queue, per-bank command queues; a request
//                                  takes the earliest slot its bank and the unit's shared
//                                  resources allow, ahead of older requests still waiting
//
// Both cost a bounded amount of work per request (no cycle loop). docs/timing-model.md
// describes what each predicts.
#pragma once

#include <cstdint>
#include <memory>

#include <vector>

#include "models/hbm_timing.h"
#include "models/memory_config.h"

namespace npusim::models::hbm {

struct ActivitySeries;  // models/hbm/bank_history.h

// What the energy of a unit (channel or pseudo-channel) over cycles [0, cycles) is computed
// from (models/hbm_energy.h): its commands, and the cycles in which at least one of its banks
// had a row open (the bank-state history, models/hbm/bank_history.h).
struct UnitActivity {
  uint64_t acts = 0;            // ACT commands (each with its precharge)
  uint64_t reads = 0, writes = 0;  // column commands: bursts
  uint64_t refreshes = 0;       // all-bank refreshes started before the end
  uint64_t bank_refreshes = 0;  // per-bank refreshes (hbm.refresh per_bank) started before it
  uint64_t cycles = 0;          // the span: [0, cycles)
  uint64_t open_cycles = 0;     // cycles of the span with a row open in at least one bank
};

class Controller {
 public:
  virtual ~Controller() = default;
  // Schedules the bursts covering [offset, offset + len) (len >= 1), all arriving at
  // `arrival_cycles`, in address order; returns the cycle the last one completes (at least
  // the arrival) and adds their row outcomes to `rows`.
  virtual uint64_t schedule(uint64_t offset, uint64_t len, bool write, uint64_t arrival_cycles,
                            RowCounts& rows) = 0;
  // The cycle the last scheduled request entered its unit's transaction queue (its arrival,
  // or later when the queue was full): an initiator that stalls on a full queue
  // (`npusim traffic --issue-width`) offers its next request no earlier.
  virtual uint64_t last_admit() const = 0;
  // Refreshes (all units) up to the latest scheduled request.
  virtual uint64_t refreshes() const = 0;
  virtual const HbmAddressMap& address_map() const = 0;
  // Each unit's activity over [0, end_cycles) (one entry per unit), as if no request came
  // after the last one scheduled: rows still open close at the next refresh (or a closing
  // page policy's precharge), or at the end. `series` (optional) gets the ACTs and open
  // cycles per statistics window. Does not change the controller.
  virtual std::vector<UnitActivity> activity(uint64_t end_cycles,
                                             ActivitySeries* series = nullptr) const = 0;
};

// The controller `c.scheduler` names. Throws std::invalid_argument for a geometry that is not
// a power of two (validate(HbmConfig) rejects those first).
std::unique_ptr<Controller> make_controller(const HbmConfig& c);

}  // namespace npusim::models::hbm
