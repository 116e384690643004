// The nb_transport checks of ProtocolChecker: the base protocol's phase sequence per
// transaction on this hop, request and response exclusion, the meaning of the return value,
// and the payload rules at BEGIN_REQ (entry) and at the response (BEGIN_RESP or TLM_COMPLETED).
#include <sstream>

#include <fmt/format.h>

#include "models/protocol_checker.h"

namespace npusim::models {

namespace {
std::string phase_name(const tlm::tlm_phase& p) {
  std::ostringstream s;
  s << p;
  return s.str();
}
}  // namespace

void ProtocolChecker::nb_end(tlm::tlm_generic_payload& trans) {
  nb_.erase(&trans);
  if (request_open_ == &trans) request_open_ = nullptr;
  if (response_open_ == &trans) response_open_ = nullptr;
}

// The initiator sends `phase` on the forward path.
void ProtocolChecker::nb_before_fw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase) {
  const char* itf = "nb_transport_fw";
  const auto it = nb_.find(&trans);
  if (phase == tlm::BEGIN_REQ) {
    if (it != nb_.end()) {
      if (cfg_.nb_phase_sequence)
        violate(ProtocolRule::kNbPhaseSequence, itf,
                "BEGIN_REQ for a transaction already in progress on this hop", &trans);
      nb_end(trans);
    }
    if (cfg_.nb_exclusion && request_open_ != nullptr)
      violate(ProtocolRule::kNbExclusion, itf,
              "BEGIN_REQ while an earlier request on this hop still awaits END_REQ", &trans);
    check_entry(itf, trans);
    nb_[&trans] = NbState{Stage::kRequest, Attributes::of(trans)};
    request_open_ = &trans;
    return;
  }
  if (phase == tlm::END_RESP) {
    if (it == nb_.end() || it->second.stage != Stage::kResponse) {
      if (cfg_.nb_phase_sequence)
        violate(ProtocolRule::kNbPhaseSequence, itf,
                it == nb_.end() ? "END_RESP for a transaction not in progress on this hop"
                                : "END_RESP before BEGIN_RESP",
                &trans);
      nb_end(trans);  // one finding, not its consequences
    }
    return;
  }
  if ((phase == tlm::END_REQ || phase == tlm::BEGIN_RESP) && cfg_.nb_phase_sequence)
    violate(ProtocolRule::kNbPhaseSequence, itf,
            fmt::format("the target's phase {} sent on the forward path", phase_name(phase)),
            &trans);
  // Other (ignorable) phases are not the base protocol's: not tracked.
}

// The target moves the transaction to `phase` (a backward call or a TLM_UPDATED return).
void ProtocolChecker::nb_target_phase(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                                      const char* itf) {
  const auto it = nb_.find(&trans);
  if (it == nb_.end()) {
    if (cfg_.nb_phase_sequence)
      violate(ProtocolRule::kNbPhaseSequence, itf,
              fmt::format("{} for a transaction not in progress on this hop", phase_name(phase)),
              &trans);
    return;
  }
  NbState& st = it->second;
  if (phase == tlm::END_REQ) {
    if (st.stage != Stage::kRequest) {
      if (cfg_.nb_phase_sequence)
        violate(ProtocolRule::kNbPhaseSequence, itf,
                st.stage == Stage::kRequestEnded ? "a second END_REQ" : "END_REQ after BEGIN_RESP",
                &trans);
      return;
    }
    st.stage = Stage::kRequestEnded;
    if (request_open_ == &trans) request_open_ = nullptr;
    return;
  }
  // BEGIN_RESP (also ends the request if END_REQ was skipped).
  if (st.stage == Stage::kResponse) {
    if (cfg_.nb_phase_sequence)
      violate(ProtocolRule::kNbPhaseSequence, itf, "a second BEGIN_RESP", &trans);
    return;
  }
  if (cfg_.nb_exclusion && response_open_ != nullptr && response_open_ != &trans)
    violate(ProtocolRule::kNbExclusion, itf,
            "BEGIN_RESP while an earlier response on this hop still awaits END_RESP", &trans);
  if (cfg_.response_set_on_return && trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violate(ProtocolRule::kResponseSetOnReturn, itf,
            "BEGIN_RESP with the response status still TLM_INCOMPLETE_RESPONSE", &trans);
  check_attributes(itf, st.sent, trans);
  st.stage = Stage::kResponse;
  if (request_open_ == &trans) request_open_ = nullptr;
  response_open_ = &trans;
}

void ProtocolChecker::nb_after_fw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& sent,
                                  const tlm::tlm_phase& returned, tlm::tlm_sync_enum status) {
  const char* itf = "nb_transport_fw";
  const bool base = sent == tlm::BEGIN_REQ || sent == tlm::END_RESP;
  if (!base) return;
  switch (status) {
    case tlm::TLM_ACCEPTED:
      if (cfg_.nb_return_phase && returned != sent)
        violate(ProtocolRule::kNbReturnPhase, itf,
                fmt::format("TLM_ACCEPTED with the phase changed from {} to {}", phase_name(sent),
                            phase_name(returned)),
                &trans);
      if (sent == tlm::END_RESP) nb_end(trans);
      return;
    case tlm::TLM_UPDATED:
      if (sent == tlm::END_RESP || (returned != tlm::END_REQ && returned != tlm::BEGIN_RESP)) {
        if (cfg_.nb_return_phase)
          violate(ProtocolRule::kNbReturnPhase, itf,
                  fmt::format("TLM_UPDATED to {} after {} (the target's next phase is END_REQ or "
                              "BEGIN_RESP after BEGIN_REQ, none after END_RESP)",
                              phase_name(returned), phase_name(sent)),
                  &trans);
        if (sent == tlm::END_RESP) nb_end(trans);
        return;
      }
      nb_target_phase(trans, returned, itf);
      return;
    case tlm::TLM_COMPLETED: {
      const auto it = nb_.find(&trans);
      if (it != nb_.end() && it->second.stage != Stage::kResponse) {
        if (cfg_.response_set_on_return &&
            trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
          violate(ProtocolRule::kResponseSetOnReturn, itf,
                  "TLM_COMPLETED with the response status still TLM_INCOMPLETE_RESPONSE", &trans);
        check_attributes(itf, it->second.sent, trans);
      }
      nb_end(trans);
      return;
    }
  }
}

// The target sends `phase` on the backward path.
void ProtocolChecker::nb_before_bw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase) {
  const char* itf = "nb_transport_bw";
  if (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP) {
    nb_target_phase(trans, phase, itf);
    return;
  }
  if ((phase == tlm::BEGIN_REQ || phase == tlm::END_RESP) && cfg_.nb_phase_sequence)
    violate(ProtocolRule::kNbPhaseSequence, itf,
            fmt::format("the initiator's phase {} sent on the backward path", phase_name(phase)),
            &trans);
}

void ProtocolChecker::nb_after_bw(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& sent,
                                  const tlm::tlm_phase& returned, tlm::tlm_sync_enum status) {
  const char* itf = "nb_transport_bw";
  if (sent != tlm::END_REQ && sent != tlm::BEGIN_RESP) return;
  switch (status) {
    case tlm::TLM_ACCEPTED:
      if (cfg_.nb_return_phase && returned != sent)
        violate(ProtocolRule::kNbReturnPhase, itf,
                fmt::format("TLM_ACCEPTED with the phase changed from {} to {}", phase_name(sent),
                            phase_name(returned)),
                &trans);
      return;
    case tlm::TLM_UPDATED:
      if (sent == tlm::BEGIN_RESP && returned == tlm::END_RESP) {
        nb_end(trans);
        return;
      }
      if (cfg_.nb_return_phase)
        violate(ProtocolRule::kNbReturnPhase, itf,
                fmt::format("TLM_UPDATED to {} after {} (the initiator's only next phase is "
                            "END_RESP after BEGIN_RESP)",
                            phase_name(returned), phase_name(sent)),
                &trans);
      return;
    case tlm::TLM_COMPLETED: nb_end(trans); return;
  }
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_fw(tlm::tlm_generic_payload& trans,
                                                    tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  ++calls_.nb_transport_fw;
  const tlm::tlm_phase sent = phase;
  nb_before_fw(trans, sent);
  const Instant before = now();
  const tlm::tlm_sync_enum status = out->nb_transport_fw(trans, phase, delay);
  check_no_wait("nb_transport_fw", before, &trans);
  nb_after_fw(trans, sent, phase, status);
  return status;
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_bw(tlm::tlm_generic_payload& trans,
                                                    tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  ++calls_.nb_transport_bw;
  const tlm::tlm_phase sent = phase;
  nb_before_bw(trans, sent);
  const Instant before = now();
  const tlm::tlm_sync_enum status = in->nb_transport_bw(trans, phase, delay);
  check_no_wait("nb_transport_bw", before, &trans);
  nb_after_bw(trans, sent, phase, status);
  return status;
}

}  // namespace npusim::models
