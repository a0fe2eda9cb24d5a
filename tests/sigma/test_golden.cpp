// Golden proofs (STYLE.md practice 7): proofs produced by version 2 of the format, frozen in
// tests/sigma/golden/, must keep verifying. Regenerate only on a deliberate format change with
//   test_sigma "[.golden-write]"
// Proofs of version 1 (tests/sigma/golden/v1/: circuit and range proofs whose first binding
// could be forged, docs/proofs.md §4.4) must never verify again, not even relabelled.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/linear.hpp"
#include "gopa/sigma/range.hpp"
#include "sigma_test_util.hpp"
#include "testdata.hpp"

using namespace gopa;
using namespace gopa::sigma;
using json = nlohmann::json;

namespace {

const char* const kLabel = "gopa/golden v1";

std::string golden_path(const std::string& name) {
  return std::string(gopa_test_sigma_golden_dir()) + "/" + name;
}

std::vector<std::uint8_t> unhex(const std::string& s) {
  auto b = from_hex(s);
  REQUIRE(b);
  return *b;
}

Point point_hex(const std::string& s) {
  auto p = Point::decode(unhex(s));
  REQUIRE(p);
  return *p;
}

// The small circuit of the golden circuit proof: x committed, x·y = 12, (x·y)·(x+1) public.
void golden_circuit(CircuitBuilder& b) {
  LinComb x = b.committed(SecretScalar::from_u64(3));
  LinComb y = b.secret(SecretScalar::from_u64(4));
  LinComb xy = b.mul(x, y);
  b.assert_equal(xy, LinComb::of_constant(Scalar::from_u64(12)));
  b.assert_equal(b.mul(xy, x + Scalar::one()), b.public_input(Scalar::from_u64(48)));
}

// A golden range file's statement and the generator set it names.
std::pair<RangeStatement, std::shared_ptr<const GeneratorSet>> range_statement(const json& j) {
  RangeStatement st;
  st.bits = j.at("bits").get<unsigned>();
  for (const auto& c : j.at("commitments")) st.commitments.push_back(point_hex(c.get<std::string>()));
  auto gens = GeneratorSet::get(j.at("generators").get<std::string>(), range_generators(st.bits, st.commitments.size()));
  return {st, gens};
}

}  // namespace

TEST_CASE("golden proofs of format v2 keep verifying", "[sigma][golden]") {
  for (const char* name : {"range_64x1.json", "range_16x3.json"}) {
    INFO(name);
    const json j = json::parse(gopa::test::read_file(golden_path(name)));
    const auto [st, gens] = range_statement(j);
    auto proof = RangeProof::decode(unhex(j.at("proof").get<std::string>()));
    REQUIRE(proof);
    Transcript t(kLabel);
    VerifyResult r = verify_range(t, *gens, st, *proof);
    INFO(r.message);
    CHECK(r.ok());
  }
  {
    const json j = json::parse(gopa::test::read_file(golden_path("circuit_small.json")));
    CircuitBuilder vb(CircuitBuilder::kVerifier);
    golden_circuit(vb);
    CHECK(to_hex(vb.circuit().hash()) == j.at("circuit_hash").get<std::string>());
    auto gens = GeneratorSet::get(j.at("generators").get<std::string>(),
                                  vb.circuit().generators_needed());
    std::vector<Point> coms{point_hex(j.at("commitments").at(0).get<std::string>())};
    auto proof = CircuitProof::decode(unhex(j.at("proof").get<std::string>()), vb.circuit());
    REQUIRE(proof);
    Transcript t(kLabel);
    CHECK(verify_circuit(t, *gens, vb.circuit(), vb.publics(), coms, *proof).ok());
    // A sealed copy binds the same identifier, so the same proof verifies against it.
    const auto sealed_copy = gopa::sigma::sealed(vb.circuit());
    CHECK(sealed_copy->id() == vb.circuit().hash());
    CHECK(vb.circuit().id() == vb.circuit().hash());
    Transcript t2(kLabel);
    CHECK(verify_circuit(t2, *gens, *sealed_copy, vb.publics(), coms, *proof).ok());
  }
  {
    const json j = json::parse(gopa::test::read_file(golden_path("linear_4x2.json")));
    LinearStatement st;
    st.n = 4;
    for (const auto& c : j.at("commitments")) st.commitments.push_back(point_hex(c.get<std::string>()));
    for (const auto& f : j.at("forms")) {
      std::vector<Scalar> form;
      for (const auto& s : f) form.push_back(*Scalar::decode(unhex(s.get<std::string>())));
      st.forms.push_back(form);
    }
    for (const auto& v : j.at("values")) {
      std::vector<Scalar> vals;
      for (const auto& s : v) vals.push_back(*Scalar::decode(unhex(s.get<std::string>())));
      st.values.push_back(vals);
    }
    auto gens = GeneratorSet::get(j.at("generators").get<std::string>(), 4);
    auto proof = LinearProof::decode(unhex(j.at("proof").get<std::string>()), 4);
    REQUIRE(proof);
    Transcript t(kLabel);
    CHECK(verify_linear(t, *gens, st, *proof).ok());
  }
}

TEST_CASE("write golden proofs (manual)", "[.golden-write]") {
  DeterministicRng rng(2026);
  auto write = [](const std::string& name, const json& j) {
    std::ofstream(golden_path(name)) << j.dump(2) << "\n";
  };
  for (auto [bits, d] : {std::pair{64U, std::size_t{1}}, std::pair{16U, std::size_t{3}}}) {
    auto gens = GeneratorSet::get("gopa", range_generators(bits, d));
    auto inst = gopa::sigma::test::make_range_instance(bits, d, rng, *gens);
    Transcript t(kLabel);
    auto p = prove_range(t, *gens, bits, inst.st.commitments, inst.values, inst.blinders, rng);
    json j{{"generators", "gopa"}, {"bits", static_cast<unsigned>(bits)}, {"proof", to_hex(p->encode())}};
    for (const Point& c : inst.st.commitments) j["commitments"].push_back(c.to_hex());
    write("range_" + std::to_string(bits) + "x" + std::to_string(d) + ".json", j);
  }
  {
    CircuitBuilder pb(CircuitBuilder::kProver);
    golden_circuit(pb);
    auto gens = GeneratorSet::get("gopa", pb.circuit().generators_needed());
    std::vector<SecretScalar> bl;
    bl.push_back(SecretScalar::random(rng));
    std::vector<Point> coms{commit(SecretScalar::from_u64(3), bl[0], *gens)};
    Transcript t(kLabel);
    auto p = prove_circuit(t, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng);
    write("circuit_small.json", json{{"generators", "gopa"},
                                     {"circuit_hash", to_hex(pb.circuit().hash())},
                                     {"commitments", {coms[0].to_hex()}},
                                     {"proof", to_hex(p.encode())}});
  }
  {
    auto gens = GeneratorSet::get("gopa", 4);
    LinearStatement st;
    st.n = 4;
    std::vector<std::vector<SecretScalar>> xs(2);
    std::vector<SecretScalar> gam;
    for (int f = 0; f < 2; ++f) {
      std::vector<Scalar> form;
      for (int i = 0; i < 4; ++i) form.push_back(Scalar::random(rng));
      st.forms.push_back(form);
    }
    json j{{"generators", "gopa"}};
    for (auto& x : xs) {
      for (int i = 0; i < 4; ++i) x.push_back(SecretScalar::random(rng));
      gam.push_back(SecretScalar::random(rng));
      st.commitments.push_back(commit_vector(x, gam.back(), *gens));
      std::vector<Scalar> vals;
      json jv = json::array();
      for (const auto& form : st.forms) {
        Scalar y;
        for (std::size_t i = 0; i < 4; ++i) y += form[i] * x[i].declassify();
        vals.push_back(y);
        jv.push_back(y.to_hex());
      }
      st.values.push_back(vals);
      j["values"].push_back(jv);
      j["commitments"].push_back(st.commitments.back().to_hex());
    }
    for (const auto& form : st.forms) {
      json jf = json::array();
      for (const Scalar& s : form) jf.push_back(s.to_hex());
      j["forms"].push_back(jf);
    }
    Transcript t(kLabel);
    j["proof"] = to_hex(prove_linear(t, *gens, st, xs, gam, rng).encode());
    write("linear_4x2.json", j);
  }
}

TEST_CASE("proofs of format v1 are refused, also with their version byte rewritten", "[sigma][golden]") {
  auto relabel = [](std::vector<std::uint8_t> b) {
    REQUIRE(b.size() > 2);
    CHECK(b[0] == 0x01);
    b[0] = kProofVersion;
    return b;
  };
  for (const char* name : {"v1/range_64x1.json", "v1/range_16x3.json"}) {
    INFO(name);
    const json j = json::parse(gopa::test::read_file(golden_path(name)));
    const auto [st, gens] = range_statement(j);
    const auto bytes = unhex(j.at("proof").get<std::string>());
    CHECK_FALSE(RangeProof::decode(bytes));
    auto proof = RangeProof::decode(relabel(bytes));
    REQUIRE(proof);
    Transcript t(kLabel);
    CHECK_FALSE(verify_range(t, *gens, st, *proof).ok());
  }
  {
    const json j = json::parse(gopa::test::read_file(golden_path("v1/circuit_small.json")));
    CircuitBuilder vb(CircuitBuilder::kVerifier);
    golden_circuit(vb);
    auto gens = GeneratorSet::get(j.at("generators").get<std::string>(),
                                  vb.circuit().generators_needed());
    std::vector<Point> coms{point_hex(j.at("commitments").at(0).get<std::string>())};
    const auto bytes = unhex(j.at("proof").get<std::string>());
    CHECK_FALSE(CircuitProof::decode(bytes, vb.circuit()));
    auto proof = CircuitProof::decode(relabel(bytes), vb.circuit());
    REQUIRE(proof);
    Transcript t(kLabel);
    CHECK_FALSE(verify_circuit(t, *gens, vb.circuit(), vb.publics(), coms, *proof).ok());
  }
  {
    const json j = json::parse(gopa::test::read_file(golden_path("v1/linear_4x2.json")));
    const auto bytes = unhex(j.at("proof").get<std::string>());
    CHECK_FALSE(LinearProof::decode(bytes, 4));
  }
}
