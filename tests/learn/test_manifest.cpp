// Training manifests: strict decoding, the model trajectory, and the audit of a training run
// against a coordinator that reorders, drops, repeats or borrows sessions, or lies about the model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/learn/manifest.hpp"
#include "gopa/protocol/run.hpp"
#include "gopa/random.hpp"

using namespace gopa;
using namespace gopa::learn;
namespace bb = gopa::bulletin;
namespace gp = gopa::protocol;

namespace {

TrainingManifest sample_manifest(std::uint32_t rounds) {
  TrainingManifest m;
  m.data = "housing";
  m.test_fraction = 0.2;
  m.split_seed = 7;
  m.parties = 4;
  m.classes = 2;
  m.features = 2;
  m.learning_rate = 0.5;
  m.clip = 1.0;
  for (std::uint32_t t = 0; t < rounds; ++t) {
    Bytes32 id{};
    id[0] = static_cast<std::uint8_t>(t);
    id[1] = static_cast<std::uint8_t>(t >> 8);
    id[31] = 0xa5;
    m.sessions.push_back(id);
  }
  m.model[0] = 1;
  return m;
}

// Offsets of the fixed fields after the 7-byte name "housing".
constexpr std::size_t kName = 2, kTestFraction = 9, kSplitSeed = 17, kParties = 25, kClasses = 29, kFeatures = 33,
                      kRate = 37, kClip = 45, kNoise = 53, kRounds = 54;

void put_u32_at(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}
void put_f64_at(Bytes& b, std::size_t at, double v) {
  const auto u = std::bit_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u >> (56 - 8 * i));
}

// Sessions of a training run: d = 3 (two features and a bias), the L2 ball of radius C = 1,
// n = 4, each set up by the coordinator key of `coordinator_seed`.
struct Sessions {
  std::unique_ptr<bb::LocalBoard> board = bb::LocalBoard::open(bb::make_memory_store(), {}).value();
  std::vector<Bytes32> ids;
  std::vector<std::vector<double>> estimates;  // the coordinator's, as gopa train steps with them

  void run(std::uint64_t seed, const gp::Key32& coordinator_seed) {
    gp::RunConfig cfg;
    cfg.params = gp::SessionParams::defaults(4, 3);
    cfg.params.neighbors = 2;
    cfg.params.sigma_eta = 0.01;
    cfg.params.sigma_delta = 50.0;
    cfg.params.frac_bits = 16;
    cfg.params.input_domain = gp::InputDomain::l2_ball;
    cfg.params.input_max = std::uint64_t{1} << 16;
    cfg.params.sampler = gp::SamplerKind::clt;
    cfg.params.sampler_precision = 8;
    cfg.params.nonce[0] = static_cast<std::uint8_t>(seed);
    cfg.seed = seed;
    cfg.coordinator_sign_seed = coordinator_seed;
    DeterministicRng rng(seed);
    for (std::uint32_t u = 0; u < 4; ++u) {
      std::vector<double> x(3);
      for (double& v : x) v = (static_cast<double>(rng.uniform(1001)) - 500.0) / 1000.0;  // ‖x‖₂ < 0.87
      const auto fx = cfg.params.fixed_ball_input(x);
      REQUIRE(fx.has_value());
      std::vector<std::uint64_t> row;
      for (std::int64_t v : *fx) row.push_back(static_cast<std::uint64_t>(v));
      cfg.inputs.push_back(row);
    }
    auto r = gp::run_session(cfg, *board);
    REQUIRE(r.ok());
    ids.push_back(r.value().session_id);
    estimates.push_back(r.value().estimate);
  }

  std::vector<SessionOutcome> outcomes() {
    std::vector<SessionOutcome> out;
    const auto listing = gp::list_sessions(*board);
    REQUIRE(listing.ok());
    for (const Bytes32& id : listing.value()) {
      const gp::AuditReport a = gp::audit_session(*board, id);
      out.push_back({id, a.all_passed() && a.misbehaving.empty(), a.estimate, a.params});
    }
    return out;
  }
};

gp::Key32 key_seed(std::uint8_t tag) {
  gp::Key32 k{};
  k.fill(tag);
  return k;
}

TrainingManifest run_manifest(const std::vector<Bytes32>& ids, const std::vector<std::vector<double>>& estimates,
                              double rate = 0.5) {
  TrainingManifest m = sample_manifest(0);
  m.sessions = ids;
  m.learning_rate = rate;
  m.model = model_digest(trajectory(m, estimates).back());
  return m;
}

bb::CheckResult find_check(const TrainingAudit& a, const std::string& name) {
  for (const auto& c : a.checks)
    if (c.name == name) return c;
  throw std::runtime_error("no check named " + name);
}

std::vector<TrainingAudit> audit(Sessions& s) {
  const auto outcomes = s.outcomes();
  auto r = audit_trainings(*s.board, outcomes);
  REQUIRE(r.ok());
  return r.value();
}

// The run of id `id` signed by `signer`.
TrainingAudit run_of(const std::vector<TrainingAudit>& runs, const bb::PublicKey& signer, const Bytes32& id) {
  for (const TrainingAudit& a : runs)
    if (a.signer == signer && a.run_id == id) return a;
  throw std::runtime_error("no run of that id and signer on the board");
}

}  // namespace

TEST_CASE("Training manifest: encoding round trip and strict decoding", "[learn][manifest]") {
  const TrainingManifest m = sample_manifest(3);
  const Bytes enc = m.encode();
  REQUIRE(enc.size() == 1 + 1 + 7 + 8 + 8 + 4 + 4 + 4 + 8 + 8 + 1 + 4 + 3 * 32 + 32 + 32);
  auto back = TrainingManifest::decode(enc);
  REQUIRE(back.has_value());
  CHECK(back->encode() == enc);
  CHECK(back->sessions == m.sessions);
  CHECK(back->model == m.model);
  CHECK(back->model_dim() == 3);
  CHECK(back->run_id() == m.run_id());

  // Every truncation and an extra byte.
  for (std::size_t n = 0; n < enc.size(); ++n) {
    CHECK_FALSE(TrainingManifest::decode(std::span(enc).first(n)).has_value());
  }
  Bytes longer = enc;
  longer.push_back(0);
  CHECK_FALSE(TrainingManifest::decode(longer).has_value());

  // Every field out of its range, each alone.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<std::string, std::function<void(Bytes&)>>> bad = {
      {"version", [](Bytes& b) { b[0] = 2; }},
      {"name length 0", [](Bytes& b) { b[1] = 0; }},
      {"name length 33", [](Bytes& b) { b[1] = 33; }},
      {"name character", [](Bytes& b) { b[kName] = 'H'; }},
      {"name character /", [](Bytes& b) { b[kName + 3] = '/'; }},
      {"test fraction 0", [](Bytes& b) { put_f64_at(b, kTestFraction, 0.0); }},
      {"test fraction 1", [](Bytes& b) { put_f64_at(b, kTestFraction, 1.0); }},
      {"test fraction NaN", [nan](Bytes& b) { put_f64_at(b, kTestFraction, nan); }},
      {"parties 1", [](Bytes& b) { put_u32_at(b, kParties, 1); }},
      {"classes 1", [](Bytes& b) { put_u32_at(b, kClasses, 1); }},
      {"features 0", [](Bytes& b) { put_u32_at(b, kFeatures, 0); }},
      {"model too large", [](Bytes& b) { put_u32_at(b, kFeatures, 1u << 20); }},
      {"rate 0", [](Bytes& b) { put_f64_at(b, kRate, 0.0); }},
      {"rate -1", [](Bytes& b) { put_f64_at(b, kRate, -1.0); }},
      {"rate inf", [inf](Bytes& b) { put_f64_at(b, kRate, inf); }},
      {"rate NaN", [nan](Bytes& b) { put_f64_at(b, kRate, nan); }},
      {"clip -0.5", [](Bytes& b) { put_f64_at(b, kClip, -0.5); }},
      {"clip inf", [inf](Bytes& b) { put_f64_at(b, kClip, inf); }},
      {"noise 0", [](Bytes& b) { b[kNoise] = 0; }},
      {"noise 3", [](Bytes& b) { b[kNoise] = 3; }},
      {"rounds 0", [](Bytes& b) { put_u32_at(b, kRounds, 0); }},
      {"rounds 2 of 3", [](Bytes& b) { put_u32_at(b, kRounds, 2); }},
      {"rounds 4 of 3", [](Bytes& b) { put_u32_at(b, kRounds, 4); }},
      {"rounds 10001", [](Bytes& b) { put_u32_at(b, kRounds, 10'001); }},
  };
  for (auto& [what, mutate] : bad) {
    Bytes b = enc;
    mutate(b);
    std::string why;
    INFO(what);
    CHECK_FALSE(TrainingManifest::decode(b, &why).has_value());
    CHECK_FALSE(why.empty());
  }
  // The encoder refuses what the decoder would.
  TrainingManifest wrong = m;
  wrong.learning_rate = nan;
  CHECK_THROWS_AS(wrong.encode(), std::invalid_argument);
  wrong = m;
  wrong.sessions.clear();
  CHECK_THROWS_AS(wrong.encode(), std::invalid_argument);
  // Every field is bound into the run id.
  TrainingManifest other = m;
  other.learning_rate = 0.25;
  CHECK(other.run_id() != m.run_id());
  other = m;
  other.split_seed = 8;
  CHECK(other.run_id() != m.run_id());
  other = m;
  other.data_digest[31] ^= 1;
  CHECK(other.run_id() != m.run_id());
}

TEST_CASE("Model trajectory: w_t = w_{t-1} - rate * estimate_t, unchanged in a round without a result",
          "[learn][manifest]") {
  TrainingManifest m = sample_manifest(3);
  const std::vector<std::vector<double>> est = {{1.0, -2.0, 0.5}, {}, {0.25, 0.25, -1.0}};
  const auto w = trajectory(m, est);
  REQUIRE(w.size() == 4);
  CHECK(w[0].w == std::vector<double>{0.0, 0.0, 0.0});
  CHECK(w[1].w == std::vector<double>{-0.5, 1.0, -0.25});
  CHECK(w[2].w == w[1].w);
  CHECK(w[3].w == std::vector<double>{-0.625, 0.875, 0.25});
  CHECK_THROWS_AS(trajectory(m, std::vector<std::vector<double>>{{1.0}, {}, {}}), std::invalid_argument);
  CHECK_THROWS_AS(trajectory(m, std::vector<std::vector<double>>{{}, {}}), std::invalid_argument);

  // The digest sees every weight's bits and the shape.
  Model a = w[3];
  Model b = a;
  b.w[2] = std::nextafter(b.w[2], 1.0);
  CHECK(model_digest(a) != model_digest(b));
  Dataset ds;
  ds.features = {"a", "b"};
  ds.x = {{1.0, 2.0}, {3.0, 4.0}};
  ds.y = {0, 1};
  const Bytes32 dd = dataset_digest(ds);
  Dataset ds2 = ds;
  ds2.y[1] = 0;
  CHECK(dataset_digest(ds2) != dd);
  ds2 = ds;
  ds2.x[0][1] = std::nextafter(2.0, 3.0);
  CHECK(dataset_digest(ds2) != dd);
  ds2 = ds;
  ds2.classes = 3;
  CHECK(dataset_digest(ds2) != dd);
  Model c = Model::zeros(3, 2);
  Model d = Model::zeros(2, 2);
  CHECK(model_digest(c) != model_digest(d));
}

TEST_CASE("Training run audit: the honest run passes; reordered, dropped, repeated or borrowed sessions and a false "
          "model fail; outsiders and replays change nothing",
          "[learn][manifest][board]") {
  // The sessions are run once and shared by the sections; every section posts a manifest of its
  // own (its own run id), and the audit looks at that run alone.
  const gp::Key32 coord = key_seed(0x11), other = key_seed(0x22);
  static Sessions s = [&] {
    Sessions x;
    x.run(1, coord);
    x.run(2, coord);
    x.run(3, coord);
    x.run(4, other);  // another coordinator's session on the same board
    return x;
  }();
  const auto coord_key = bb::SigningKey::from_seed(coord);
  const std::vector<Bytes32> ids(s.ids.begin(), s.ids.begin() + 3);
  const std::vector<std::vector<double>> est(s.estimates.begin(), s.estimates.begin() + 3);

  SECTION("honest") {
    const TrainingManifest m = run_manifest(ids, est);
    REQUIRE(post_manifest(*s.board, m, coord_key).ok());
    // Anyone may post the signed entry again, and its signer may post the same manifest under
    // another sequence number: it counts once.
    bb::Entry e;
    e.session_id = m.run_id();
    e.type = bb::MessageType::training;
    e.payload = m.encode();
    REQUIRE(s.board->append(bb::sign_entry(e, coord_key)).ok());
    e.sequence = 5;
    REQUIRE(s.board->append(bb::sign_entry(e, coord_key)).ok());
    // An outsider (no session of its own) posts a manifest of the same sessions with another model.
    TrainingManifest fake = m;
    fake.model[5] ^= 1;
    const auto outsider = bb::SigningKey::from_seed(key_seed(0x33));
    REQUIRE(post_manifest(*s.board, fake, outsider).ok());

    const auto runs = audit(s);
    REQUIRE(runs.size() == 2);
    const TrainingAudit a = run_of(runs, coord_key.public_key(), m.run_id());
    for (const auto& c : a.checks) INFO(c.name << ": " << bb::check_status_name(c.status) << " " << c.detail);
    CHECK(a.passed());
    CHECK_FALSE(a.ignored);
    REQUIRE(a.models.size() == 4);
    CHECK(model_digest(a.models.back()) == m.model);
    const TrainingAudit f = run_of(runs, outsider.public_key(), fake.run_id());
    CHECK(f.ignored);
    CHECK_FALSE(f.passed());
    CHECK(f.checks.front().status == bb::CheckStatus::skip);
  }

  auto failing = [&](const TrainingManifest& m, const std::string& check, const std::string& detail) {
    REQUIRE(post_manifest(*s.board, m, coord_key).ok());
    const auto runs = audit(s);
    const TrainingAudit a = run_of(runs, coord_key.public_key(), m.run_id());
    CHECK_FALSE(a.passed());
    const bb::CheckResult c = find_check(a, check);
    CHECK(c.status == bb::CheckStatus::fail);
    INFO(c.detail);
    CHECK(c.detail.find(detail) != std::string::npos);
  };
  SECTION("reordered") {
    failing(run_manifest({ids[1], ids[0], ids[2]}, {est[1], est[0], est[2]}), "sessions of the run",
            "before the previous round");
  }
  SECTION("a round left out (the coordinator keeps a session it did not like off the run)") {
    failing(run_manifest({ids[0], ids[2]}, {est[0], est[2]}), "sessions of the run", "not in the run");
  }
  SECTION("a round listed twice") {
    failing(run_manifest({ids[0], ids[1], ids[1], ids[2]}, {est[0], est[1], est[1], est[2]}), "sessions of the run",
            "listed twice");
  }
  SECTION("another coordinator's session") {
    failing(run_manifest({ids[0], ids[1], s.ids[3]}, {est[0], est[1], s.estimates[3]}), "sessions of the run",
            "another coordinator");
  }
  SECTION("a session that is not on the board") {
    TrainingManifest m = run_manifest(ids, est);
    m.sessions[1][0] ^= 1;
    failing(m, "sessions of the run", "no such session");
  }
  SECTION("a model of another shape than the sessions' d") {
    TrainingManifest m = run_manifest(ids, est);
    m.features = 3;
    failing(m, "sessions of the run", "d = 3");
  }
  SECTION("another clip than the sessions' L2 ball") {
    TrainingManifest m = run_manifest(ids, est);
    m.clip = 2.0;
    failing(m, "sessions of the run", "radius");
  }
  SECTION("another learning rate than the model was trained with") {
    TrainingManifest m = run_manifest(ids, est);
    m.learning_rate = 0.25;
    failing(m, "model trajectory recomputed", "not w_T");
  }
  SECTION("a final model that is not the trajectory's") {
    TrainingManifest m = run_manifest(ids, est);
    m.model[0] ^= 0x80;
    failing(m, "model trajectory recomputed", "not w_T");
  }
  SECTION("a session that does not verify") {
    const TrainingManifest m = run_manifest(ids, est);
    REQUIRE(post_manifest(*s.board, m, coord_key).ok());
    auto outcomes = s.outcomes();
    for (auto& o : outcomes)
      if (o.id == ids[1]) o.passed = false;
    const auto runs = audit_trainings(*s.board, outcomes).value();
    const TrainingAudit a = run_of(runs, coord_key.public_key(), m.run_id());
    CHECK_FALSE(a.passed());
    CHECK(find_check(a, "every round's session verified").status == bb::CheckStatus::fail);
    CHECK(a.models.empty());
  }
  SECTION("a manifest outside round 0, and one in chunks with a chunk withheld") {
    TrainingManifest m = run_manifest(ids, est, 0.3);
    bb::Entry e;
    e.session_id = m.run_id();
    e.round = 3;
    e.type = bb::MessageType::training;
    e.payload = m.encode();
    REQUIRE(s.board->append(bb::sign_entry(e, coord_key)).ok());
    // 2,100 rounds do not fit one entry: chunks, of which the last is withheld.
    TrainingManifest big = sample_manifest(2'101);
    const auto parts = gp::chunk_payloads(big.encode());
    REQUIRE(parts.size() == 2);
    bb::Entry c;
    c.session_id = big.run_id();
    c.type = bb::MessageType::training;
    c.payload = parts[0];
    REQUIRE(s.board->append(bb::sign_entry(c, coord_key)).ok());
    const auto runs = audit(s);
    const TrainingAudit a = run_of(runs, coord_key.public_key(), m.run_id());
    CHECK_FALSE(a.manifest.has_value());
    CHECK(a.checks.front().detail.find("outside round 0") != std::string::npos);
    const TrainingAudit b = run_of(runs, coord_key.public_key(), big.run_id());
    CHECK_FALSE(b.manifest.has_value());
    CHECK(b.checks.front().detail.find("chunks missing") != std::string::npos);
  }
  SECTION("a manifest in chunks is read whole") {
    TrainingManifest big = sample_manifest(2'100);
    REQUIRE(post_manifest(*s.board, big, coord_key).ok());
    const auto runs = audit(s);
    const TrainingAudit b = run_of(runs, coord_key.public_key(), big.run_id());
    REQUIRE(b.manifest.has_value());
    CHECK(b.manifest->sessions.size() == 2'100);
    CHECK(find_check(b, "sessions of the run").detail.find("no such session") != std::string::npos);
  }
}
