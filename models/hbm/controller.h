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

#include "models/hbm_timing.h"
#include "models/memory_config.h"

namespace npusim::models::hbm {

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
};

// The controller `c.scheduler` names. Throws std::invalid_argument for a geometry that is not
// a power of two (validate(HbmConfig) rejects those first).
std::unique_ptr<Controller> make_controller(const HbmConfig& c);

}  // namespace npusim::models::hbm
