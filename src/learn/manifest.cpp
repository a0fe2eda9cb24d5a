// Training manifests and the audit of a training run (manifest.hpp, docs/training.md §6).
#include "gopa/learn/manifest.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/note.hpp"
#include "gopa/bytes.hpp"
#include "gopa/protocol/messages.hpp"

namespace gopa::learn {

namespace {

namespace bb = gopa::bulletin;
using bb::CheckResult;
using bb::CheckStatus;

constexpr std::string_view kRunIdDomain = "gopa/training-run/v1";
constexpr std::string_view kModelDomain = "gopa/train/model/v1";
constexpr std::size_t kFixedSize = 1 + 1 + 8 + 8 + 4 + 4 + 4 + 8 + 8 + 1 + 4 + 32 + 32;  // without name and ids

using Writer = ByteWriter<ByteOrder::big>;
using Reader = ByteReader<ByteOrder::big>;

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxDataName) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// The range checks shared by encode (a caller's bug) and decode (untrusted bytes).
std::string invalid_field(const TrainingManifest& m) {
  if (!valid_name(m.data)) return "data set name: 1 to 32 characters of a-z, 0-9, '-'";
  if (!(m.test_fraction > 0.0 && m.test_fraction < 1.0)) return "test fraction: must be in (0, 1)";
  if (m.parties < 2) return "parties: at least 2";
  if (m.classes < 2) return "classes: at least 2";
  if (m.features < 1) return "features: at least 1";
  if (!(std::isfinite(m.learning_rate) && m.learning_rate > 0.0)) return "learning rate: must be finite and > 0";
  if (!(std::isfinite(m.clip) && m.clip > 0.0)) return "clip: must be finite and > 0";
  if (m.noise != protocol::NoiseMode::private_samples && m.noise != protocol::NoiseMode::hidden) return "noise: must be 1 or 2";
  if (m.sessions.empty() || m.sessions.size() > kMaxManifestRounds) return "rounds: must be in 1..10000";
  const std::uint64_t outputs = m.classes == 2 ? 1 : m.classes;
  if (outputs * (std::uint64_t{m.features} + 1) > protocol::SessionParams::kMaxDim) return "model: more parameters than a session's d allows";
  return {};
}

CheckResult check(std::string name, bool ok, std::string detail) {
  return {std::move(name), ok ? CheckStatus::pass : CheckStatus::fail, std::move(detail)};
}

std::string short_id(const Bytes32& id) { return bb::to_hex(id).substr(0, 16); }

// One (run id, signer)'s training entries, in board order.
struct RunEntries {
  Bytes32 run_id{};
  bb::PublicKey signer{};
  std::vector<Bytes> payloads;
  bool wrong_round = false;
};

}  // namespace

std::size_t TrainingManifest::model_dim() const {
  const std::size_t outputs = classes == 2 ? 1 : classes;
  return outputs * (static_cast<std::size_t>(features) + 1);
}

Bytes TrainingManifest::encode() const {
  if (const std::string why = invalid_field(*this); !why.empty()) throw std::invalid_argument("training manifest: " + why);
  Bytes out;
  out.reserve(kFixedSize + data.size() + 32 * sessions.size());
  Writer w(out);
  w.u8(kManifestVersion).u8(static_cast<std::uint8_t>(data.size()));
  w.bytes(std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
  w.f64(test_fraction).u64(split_seed).u32(parties).u32(classes).u32(features).f64(learning_rate).f64(clip);
  w.u8(static_cast<std::uint8_t>(noise)).u32(static_cast<std::uint32_t>(sessions.size()));
  for (const Bytes32& id : sessions) w.bytes(id);
  w.bytes(data_digest).bytes(model);
  return out;
}

std::optional<TrainingManifest> TrainingManifest::decode(std::span<const std::uint8_t> in, std::string* why) {
  auto fail = [why](std::string w) -> std::optional<TrainingManifest> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  if (in.size() < 2) return fail("shorter than its header");
  Reader h(in);
  if (h.u8("version") != kManifestVersion) return fail("unknown manifest version");
  const std::size_t name_len = h.u8("data set name length");
  if (name_len == 0 || name_len > kMaxDataName) return fail("data set name: length must be 1..32");
  if (in.size() < kFixedSize + name_len) return fail("shorter than its fixed fields");
  TrainingManifest m;
  const auto name = h.bytes(name_len, "data set name");
  m.data.assign(name.begin(), name.end());
  m.test_fraction = h.f64("test fraction");
  m.split_seed = h.u64("split seed");
  m.parties = h.u32("parties");
  m.classes = h.u32("classes");
  m.features = h.u32("features");
  m.learning_rate = h.f64("learning rate");
  m.clip = h.f64("clip");
  m.noise = static_cast<protocol::NoiseMode>(h.u8("noise"));
  const std::uint32_t rounds = h.u32("rounds");
  if (rounds == 0 || rounds > kMaxManifestRounds) return fail("rounds: must be in 1..10000");
  if (h.remaining() != 32 * std::size_t{rounds} + 64) return fail("length: not 32 bytes per round and the two digests");
  m.sessions.resize(rounds);
  for (Bytes32& id : m.sessions) id = h.array<32>("session id");
  m.data_digest = h.array<32>("data digest");
  m.model = h.array<32>("model digest");
  if (!h.finish()) return fail(h.error());
  if (std::string w = invalid_field(m); !w.empty()) return fail(std::move(w));
  return m;
}

Bytes32 TrainingManifest::run_id() const {
  Bytes msg(kRunIdDomain.begin(), kRunIdDomain.end());
  const Bytes body = encode();
  msg.insert(msg.end(), body.begin(), body.end());
  return bb::sha256(msg);
}

Bytes32 dataset_digest(const Dataset& d) {
  constexpr std::string_view kDataDomain = "gopa/train/data/v1";
  Bytes msg(kDataDomain.begin(), kDataDomain.end());
  Writer w(msg);
  w.u32(d.classes).u32(static_cast<std::uint32_t>(d.rows())).u32(static_cast<std::uint32_t>(d.dim()));
  for (std::size_t i = 0; i < d.rows(); ++i) {
    for (const double v : d.x[i]) w.f64(v);
    w.u32(d.y[i]);
  }
  return bb::sha256(msg);
}

Bytes32 model_digest(const Model& m) {
  Bytes msg(kModelDomain.begin(), kModelDomain.end());
  Writer w(msg);
  w.u32(m.classes).u32(static_cast<std::uint32_t>(m.features));
  for (const double x : m.w) w.f64(x);
  return bb::sha256(msg);
}

bb::Status post_manifest(bb::Board& board, const TrainingManifest& m, const bb::SigningKey& key) {
  const Bytes32 id = m.run_id();
  std::uint64_t sequence = 0;
  for (Bytes& part : protocol::chunk_payloads(m.encode())) {
    bb::Entry e;
    e.session_id = id;
    e.round = protocol::kRoundTraining;
    e.type = bb::MessageType::training;
    e.sequence = sequence++;
    e.payload = std::move(part);
    auto r = board.append(bb::sign_entry(e, key));
    if (!r) return r.error();
  }
  return {};
}

bool TrainingAudit::passed() const {
  return manifest.has_value() && std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.status != CheckStatus::fail; });
}

std::vector<Model> trajectory(const TrainingManifest& m, std::span<const std::vector<double>> estimates) {
  if (estimates.size() != m.sessions.size()) throw std::invalid_argument("trajectory: one estimate per round");
  std::vector<Model> out;
  out.reserve(estimates.size() + 1);
  out.push_back(Model::zeros(m.classes, m.features));
  for (const std::vector<double>& e : estimates) {
    Model next = out.back();
    if (!e.empty()) {
      if (e.size() != next.dim()) throw std::invalid_argument("trajectory: an estimate of another dimension than the model's");
      next.step(e, m.learning_rate);
    }
    out.push_back(std::move(next));
  }
  return out;
}

bb::Result<std::vector<TrainingAudit>> audit_trainings(bb::Board& board, std::span<const SessionOutcome> sessions) {
  // One pass over the log: every session's coordinator (the signer of its first setup entry)
  // and board position, and the training entries grouped by (run id, signer).
  std::map<Bytes32, std::pair<bb::PublicKey, std::size_t>> setup;  // id → coordinator, position
  std::vector<RunEntries> runs;
  auto cp = board.checkpoint();
  if (!cp) return cp.error();
  auto opened = bb::open_checkpoint(cp.value(), board.verifier());
  if (!opened) return opened.error();
  const std::uint64_t size = opened.value().size;
  for (std::uint64_t at = 0; at < size; at += 1024) {
    auto batch = board.read(at, std::min<std::uint64_t>(size, at + 1024));
    if (!batch) return batch.error();
    for (const Bytes& raw : batch.value()) {
      auto decoded = bb::decode_entry(raw);
      if (!decoded) continue;  // the sessions' audits report undecodable entries
      const bb::Entry& e = decoded.value();
      if (e.type == bb::MessageType::session_setup) {
        setup.try_emplace(e.session_id, e.sender, setup.size());
      } else if (e.type == bb::MessageType::training) {
        auto it = std::find_if(runs.begin(), runs.end(),
                               [&](const RunEntries& r) { return r.run_id == e.session_id && r.signer == e.sender; });
        if (it == runs.end()) {
          runs.push_back({e.session_id, e.sender, {}, false});
          it = std::prev(runs.end());
        }
        if (e.round != protocol::kRoundTraining) it->wrong_round = true;
        // An exact copy of an entry (anyone can post the signed bytes again) changes nothing.
        if (std::find(it->payloads.begin(), it->payloads.end(), e.payload) == it->payloads.end()) it->payloads.push_back(e.payload);
      }
    }
  }
  std::map<Bytes32, const SessionOutcome*> outcome;
  for (const SessionOutcome& s : sessions) outcome.emplace(s.id, &s);

  std::vector<TrainingAudit> out;
  for (RunEntries& run : runs) {
    TrainingAudit a;
    a.run_id = run.run_id;
    a.signer = run.signer;
    // Only a session's coordinator speaks for a training run: anyone else's manifest is ignored,
    // so an outsider cannot make a run's audit fail.
    if (std::none_of(setup.begin(), setup.end(), [&](const auto& s) { return s.second.first == run.signer; })) {
      a.ignored = true;
      a.checks.push_back({"training manifest", CheckStatus::skip,
                          "run " + short_id(run.run_id) + ": signed by " + short_id(run.signer) +
                              ", who set up no session on this board: ignored"});
      out.push_back(std::move(a));
      continue;
    }
    // The manifest: one entry, or one chunk set, from one signer.
    std::string why;
    std::optional<Bytes> message;
    if (run.wrong_round) {
      why = "a training entry outside round 0";
    } else if (run.payloads.size() == 1 && !protocol::is_chunk(run.payloads.front())) {
      message = std::move(run.payloads.front());
    } else {
      protocol::ChunkAssembler asm_;
      for (const Bytes& p : run.payloads) {
        if (!protocol::is_chunk(p)) {
          why = "an unchunked manifest beside others";
          break;
        }
        const auto st = asm_.add(p, &why);
        if (st == protocol::ChunkAssembler::Status::bad) break;
        if (st == protocol::ChunkAssembler::Status::complete) message = asm_.take_message();
        if (st == protocol::ChunkAssembler::Status::ignored) {
          why = "chunks beyond one manifest";
          message.reset();
          break;
        }
      }
      if (!message && why.empty()) why = "chunks missing";
    }
    if (message) {
      a.manifest = TrainingManifest::decode(*message, &why);
      if (a.manifest && a.manifest->run_id() != run.run_id) {
        a.manifest.reset();
        why = "the entries' run id is not the digest of the manifest";
      }
    }
    a.checks.push_back(check("training manifest", a.manifest.has_value(),
                             a.manifest ? std::to_string(a.manifest->sessions.size()) + " rounds, " + a.manifest->data
                                        : "run " + short_id(run.run_id) + ": " + why));
    if (!a.manifest) {
      out.push_back(std::move(a));
      continue;
    }
    const TrainingManifest& m = *a.manifest;

    // Its sessions.
    std::string problem;
    std::size_t last_position = 0;
    std::vector<Bytes32> seen;
    for (std::size_t t = 0; t < m.sessions.size() && problem.empty(); ++t) {
      const Bytes32& id = m.sessions[t];
      const std::string at = "round " + std::to_string(t + 1) + " (session " + short_id(id) + "): ";
      const auto s = setup.find(id);
      if (s == setup.end()) {
        problem = at + "no such session on the board";
      } else if (std::find(seen.begin(), seen.end(), id) != seen.end()) {
        problem = at + "listed twice";
      } else if (s->second.first != run.signer) {
        problem = at + "set up by another coordinator than the manifest's signer";
      } else if (t > 0 && s->second.second <= last_position) {
        problem = at + "set up on the board before the previous round's session";
      } else {
        const auto o = outcome.find(id);
        const protocol::SessionParams* p = o != outcome.end() && o->second->params ? &*o->second->params : nullptr;
        if (p == nullptr) {
          problem = at + "its parameters could not be read";
        } else if (p->dim != m.model_dim()) {
          problem = at + "d = " + std::to_string(p->dim) + ", the model has " + std::to_string(m.model_dim()) + " parameters";
        } else if (p->input_domain != protocol::InputDomain::l2_ball) {
          problem = at + "its input domain is not the L2 ball of the clipped gradients";
        } else if (std::abs(p->input_max_real() - m.clip) > std::ldexp(1.0, -static_cast<int>(p->frac_bits))) {
          problem = at + "its L2 ball has radius " + std::to_string(p->input_max_real()) + ", not the clip C";
        } else if (p->parties != m.parties) {
          problem = at + std::to_string(p->parties) + " parties, the run has " + std::to_string(m.parties);
        } else if (p->noise != m.noise) {
          problem = at + "its noise mode is not the run's";
        }
      }
      if (s != setup.end()) last_position = s->second.second;
      seen.push_back(id);
    }
    if (problem.empty()) {
      for (const auto& [id, who] : setup) {
        if (who.first == run.signer && std::find(m.sessions.begin(), m.sessions.end(), id) == m.sessions.end()) {
          problem = "session " + short_id(id) + " of the same coordinator is not in the run (a round left out)";
          break;
        }
      }
    }
    a.checks.push_back(check("sessions of the run", problem.empty(),
                             problem.empty() ? std::to_string(m.sessions.size()) + " sessions in board order, all by the run's coordinator"
                                             : problem));
    if (!problem.empty()) {
      out.push_back(std::move(a));
      continue;
    }
    std::size_t failed = 0, withheld = 0;
    std::vector<std::vector<double>> estimates;
    for (const Bytes32& id : m.sessions) {
      const SessionOutcome& o = *outcome.at(id);
      if (!o.passed) ++failed;
      if (o.estimate.empty()) ++withheld;
      estimates.push_back(o.estimate);
    }
    a.checks.push_back(check("every round's session verified", failed == 0,
                             std::to_string(m.sessions.size() - failed) + "/" + std::to_string(m.sessions.size()) +
                                 " PASS, " + std::to_string(withheld) + " released no result (the model stays)"));
    if (failed != 0) {
      out.push_back(std::move(a));
      continue;
    }
    a.models = trajectory(m, estimates);
    const bool same = model_digest(a.models.back()) == m.model;
    a.checks.push_back(check("model trajectory recomputed", same,
                             same ? "w_T from the verified averages equals the manifest's final model"
                                  : "the manifest's final model is not w_T recomputed from the verified averages"));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace gopa::learn
