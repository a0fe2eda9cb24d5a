#include <catch2/catch.hpp>

#include "gopa/transcript.hpp"

using gopa::Point;
using gopa::Scalar;
using gopa::Transcript;

namespace {
std::string challenge_hex(Transcript& t, std::string_view label = "c") {
  return t.challenge_scalar(label).to_hex();
}
}  // namespace

TEST_CASE("Transcript known answers (frozen: a change here breaks every stored proof)",
          "[transcript][kat]") {
  Transcript t("gopa/kat v1");
  t.domain_separator("kat-protocol v1");
  t.append_u64("n", 64);
  t.append_scalar("s", Scalar::from_u64(7));
  t.append_point("P", Point::base());
  t.append_message("m", std::string_view("hello"));
  CHECK(challenge_hex(t) == "f074594d918f27af29a26baa50c611c75ce0e47b97ffb4ddd9c7e364ee647c0c");
  CHECK(challenge_hex(t) == "570c50f2e6451b161c24323a59be1608d99447ca345ea838ed22ffd8b29bca0c");
  std::array<std::uint8_t, 100> out{};
  t.challenge_bytes("bytes", out);
  CHECK(gopa::to_hex(out).substr(0, 64) == "2fdb3ef642b52c3129e07623883464c478999ff8eb29ad048a99a94982ea083c");
}

TEST_CASE("Framing: different append sequences give different challenges", "[transcript]") {
  Transcript a("app"), b("app"), c("app"), d("app2"), e("app");
  a.append_message("x", std::string_view("ab"));
  a.append_message("x", std::string_view("c"));
  b.append_message("x", std::string_view("a"));
  b.append_message("x", std::string_view("bc"));
  c.append_message("xa", std::string_view("b"));
  c.append_message("x", std::string_view("c"));
  d.append_message("x", std::string_view("ab"));
  d.append_message("x", std::string_view("c"));
  e.domain_separator("x");
  const auto ca = challenge_hex(a), cb = challenge_hex(b), cc = challenge_hex(c), cd = challenge_hex(d);
  CHECK(ca != cb);
  CHECK(ca != cc);
  CHECK(ca != cd);
  // A domain separator is not an append with the same bytes.
  Transcript f("app");
  f.append_message("dom-sep", std::string_view("x"));
  CHECK(challenge_hex(e) != challenge_hex(f));
  // Same label, different challenge labels.
  Transcript g("app"), h("app");
  CHECK(challenge_hex(g, "c1") != challenge_hex(h, "c2"));
}

TEST_CASE("Challenges ratchet; clones fork identically", "[transcript]") {
  Transcript t("app");
  t.append_u64("k", 1);
  Transcript u = t.clone();
  const Scalar c1 = t.challenge_scalar("c");
  const Scalar c2 = t.challenge_scalar("c");
  CHECK(c1 != c2);
  CHECK(u.challenge_scalar("c") == c1);
  CHECK(u.challenge_scalar("c") == c2);
  // Appending after a challenge changes what follows.
  Transcript v = t.clone();
  v.append_u64("k", 2);
  CHECK(v.challenge_scalar("c") != t.challenge_scalar("c"));
  // u64 and scalar encodings are distinct frames even for the same value.
  Transcript w1("app"), w2("app");
  w1.append_u64("v", 5);
  w2.append_scalar("v", Scalar::from_u64(5));
  CHECK(w1.challenge_scalar("c") != w2.challenge_scalar("c"));
}

TEST_CASE("Zero challenges are rejected", "[transcript]") {
  // ℓ as 64 little-endian bytes reduces to zero.
  const auto ell = *gopa::from_hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
  std::array<std::uint8_t, 64> wide{};
  std::copy(ell.begin(), ell.end(), wide.begin());
  CHECK_FALSE(Transcript::challenge_from_wide(wide).has_value());
  std::array<std::uint8_t, 64> zero{};
  CHECK_FALSE(Transcript::challenge_from_wide(zero).has_value());
  wide[0] = static_cast<std::uint8_t>(wide[0] + 1);
  REQUIRE(Transcript::challenge_from_wide(wide).has_value());
  CHECK(*Transcript::challenge_from_wide(wide) == Scalar::one());
}

TEST_CASE("Prover RNG depends on transcript, witness and external randomness", "[transcript]") {
  Transcript t("app");
  t.append_u64("n", 3);
  gopa::SecretScalar w1 = gopa::SecretScalar::from_u64(1), w2 = gopa::SecretScalar::from_u64(2);
  const gopa::SecretScalar* a[] = {&w1};
  const gopa::SecretScalar* b[] = {&w2};
  gopa::DeterministicRng e1(9), e2(9), e3(9), e4(10);
  auto r1 = t.prover_rng(a, e1);
  auto r2 = t.prover_rng(a, e2);
  auto r3 = t.prover_rng(b, e3);
  auto r4 = t.prover_rng(a, e4);
  const auto x1 = r1.next_u64(), x2 = r2.next_u64(), x3 = r3.next_u64(), x4 = r4.next_u64();
  CHECK(x1 == x2);
  CHECK(x1 != x3);
  CHECK(x1 != x4);
  CHECK(r1.next_u64() != x1);
}
