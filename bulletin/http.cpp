// The board's verifying HTTP client (cpp-httplib) and the tlog-tiles path helpers (docs/board.md §5).
// The service is in server.cpp.
#include "gopa/bulletin/http.hpp"

#include <httplib.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>

#include "gopa/bytes.hpp"
#include "http_internal.hpp"

namespace gopa::bulletin {

using nlohmann::json;

namespace {

using detail::hashes_json;
using detail::ignore_sigpipe;

Errc errc_from_name(std::string_view name, int status) {
  static constexpr Errc kAll[] = {Errc::malformed, Errc::non_canonical, Errc::bad_signature, Errc::unknown_type,
                                  Errc::too_large, Errc::equivocation, Errc::not_found, Errc::bad_proof,
                                  Errc::fork, Errc::corrupted, Errc::stale_database, Errc::io,
                                  Errc::invalid_argument};
  for (Errc e : kAll) {
    if (name == errc_name(e)) return e;
  }
  if (status == 404) return Errc::not_found;
  if (status == 413) return Errc::too_large;
  if (status >= 500) return Errc::io;
  return Errc::malformed;
}

// The typed error of a non-200 answer: the server's body is "<code>: <message>" (send_error).
Error response_error(const std::string& what, const httplib::Response& res) {
  const auto colon = res.body.find(':');
  return make_error(errc_from_name(res.body.substr(0, colon == std::string::npos ? 0 : colon), res.status),
                    what + ": HTTP " + std::to_string(res.status) + " " + res.body.substr(0, 300));
}

Result<std::vector<Hash>> hashes_from_json(const json& a) {
  if (!a.is_array() || a.size() > 128) return make_error(Errc::malformed, "proof is not an array of at most 128 hashes");
  std::vector<Hash> out;
  for (const auto& x : a) {
    if (!x.is_string()) return make_error(Errc::malformed, "proof hash is not a string");
    auto b = from_base64(x.get<std::string>());
    if (!b || b->size() != 32) return make_error(Errc::malformed, "proof hash is not base64 of 32 bytes");
    Hash h{};
    std::copy(b->begin(), b->end(), h.begin());
    out.push_back(h);
  }
  return out;
}

}  // namespace

std::string tile_index_path(std::uint64_t index) {
  std::vector<unsigned> groups;
  do {
    groups.push_back(static_cast<unsigned>(index % 1000));
    index /= 1000;
  } while (index > 0);
  std::string out;
  for (std::size_t i = groups.size(); i-- > 0;) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%s%03u", i == 0 ? "" : "x", groups[i]);
    out += buf;
    if (i != 0) out += "/";
  }
  return out;
}

Result<std::pair<std::uint64_t, unsigned>> parse_tile_index_path(std::string_view path) {
  if (path.size() > 64) return make_error(Errc::malformed, "tile path too long");
  unsigned width = 256;
  if (const auto p = path.find(".p/"); p != std::string_view::npos) {
    const auto w = parse_decimal_u64(path.substr(p + 3));
    if (!w || *w == 0 || *w > 255) return make_error(Errc::malformed, "partial tile width is not 1..255");
    width = static_cast<unsigned>(*w);
    path = path.substr(0, p);
  }
  std::uint64_t index = 0;
  std::size_t groups = 0;
  while (!path.empty()) {
    const auto slash = path.find('/');
    std::string_view g = path.substr(0, slash);
    const bool last = slash == std::string_view::npos;
    if (!last) {
      if (g.size() != 4 || g[0] != 'x') return make_error(Errc::malformed, "tile index element is not xNNN");
      g.remove_prefix(1);
    }
    if (g.size() != 3) return make_error(Errc::malformed, "tile index element is not three digits");
    unsigned v = 0;
    for (char c : g) {
      if (c < '0' || c > '9') return make_error(Errc::malformed, "tile index element is not decimal");
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (++groups > 7) return make_error(Errc::malformed, "tile index too large");
    if (index > (UINT64_MAX - v) / 1000) return make_error(Errc::malformed, "tile index too large");
    index = index * 1000 + v;
    if (last) break;
    path.remove_prefix(slash + 1);
    if (path.empty()) return make_error(Errc::malformed, "tile path ends in a slash");
  }
  if (groups == 0) return make_error(Errc::malformed, "empty tile index");
  // Canonical only: no leading x000 elements.
  std::string canonical = tile_index_path(index);
  if (std::count(canonical.begin(), canonical.end(), '/') + 1 != static_cast<std::ptrdiff_t>(groups)) {
    return make_error(Errc::non_canonical, "tile index has leading zero elements");
  }
  return std::pair<std::uint64_t, unsigned>{index, width};
}

std::string tile_path(unsigned level, std::uint64_t index, unsigned width) {
  std::string p = "/tile/" + std::to_string(level) + "/" + tile_index_path(index);
  if (width < 256) p += ".p/" + std::to_string(width);
  return p;
}

std::string entry_bundle_path(std::uint64_t index, unsigned width) {
  std::string p = "/tile/entries/" + tile_index_path(index);
  if (width < 256) p += ".p/" + std::to_string(width);
  return p;
}

Result<std::vector<Bytes>> split_entry_bundle(std::span<const std::uint8_t> bundle) {
  std::vector<Bytes> out;
  ByteReader<ByteOrder::big> r(bundle);
  while (!r.done()) {
    const std::size_t n = r.u16();
    if (!r.ok()) return make_error(Errc::malformed, "entry bundle ends inside a length");
    const auto entry = r.bytes(n);
    if (!r.ok()) return make_error(Errc::malformed, "entry bundle ends inside an entry");
    out.emplace_back(entry.begin(), entry.end());
    if (out.size() > 256) return make_error(Errc::malformed, "entry bundle holds more than 256 entries");
  }
  return out;
}

// ------------------------------------------------------------------ client

std::string ForkEvidence::to_json() const {
  json j{{"type", "gopa-board-fork-evidence/v1"},
         {"log_vkey", vkey},
         {"reason", reason},
         {"checkpoint_a", checkpoint_a},
         {"checkpoint_b", checkpoint_b},
         {"consistency_proof", hashes_json(proof)}};
  return j.dump(2) + "\n";
}

HttpBoard::HttpBoard(HttpBoardOptions options, NoteVerifier verifier)
    : options_(std::move(options)), verifier_(std::move(verifier)) {}

HttpBoard::~HttpBoard() = default;

Result<std::unique_ptr<HttpBoard>> HttpBoard::connect(HttpBoardOptions options) {
  auto v = NoteVerifier::from_vkey(options.vkey);
  if (!v) return v.error();
  ignore_sigpipe();
  std::unique_ptr<HttpBoard> b(new HttpBoard(options, v.value()));
  b->client_ = std::make_unique<httplib::Client>(options.url);
  if (!b->client_->is_valid()) return make_error(Errc::invalid_argument, "cannot use board URL " + options.url);
  b->client_->set_connection_timeout(options.timeout_seconds, 0);
  b->client_->set_read_timeout(options.timeout_seconds, 0);
  b->client_->set_write_timeout(options.timeout_seconds, 0);
  b->client_->set_keep_alive(true);
  b->client_->set_tcp_nodelay(true);
  if (!options.ca_cert.empty()) b->client_->set_ca_cert_path(options.ca_cert.c_str());
  if (!options.state_path.empty()) {
    auto state = read_small_file(options.state_path, kMaxNoteSize);
    if (!state) return state.error();
    if (state.value()) {
      auto cp = open_checkpoint(*state.value(), b->verifier_);
      if (!cp) return make_error(Errc::corrupted, "stored checkpoint " + options.state_path + ": " + cp.error().message);
      b->trusted_note_ = *state.value();
      b->trusted_ = cp.value();
    }
  }
  return b;
}

std::optional<std::string> HttpBoard::trusted_checkpoint() const {
  std::lock_guard lk(mu_);
  return trusted_note_;
}

std::optional<ForkEvidence> HttpBoard::fork_evidence() const {
  std::lock_guard lk(mu_);
  return fork_;
}

Result<Bytes> HttpBoard::fetch(const std::string& path) {
  std::lock_guard lk(mu_);
  auto res = client_->Get(path);
  for (int attempt = 0; attempt < 2 && !res; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20 << attempt));
    res = client_->Get(path);
  }
  if (!res) return make_error(Errc::io, "GET " + path + ": " + httplib::to_string(res.error()));
  if (res->status != 200) {
    return response_error("GET " + path, *res);
  }
  return Bytes(res->body.begin(), res->body.end());
}

Result<std::string> HttpBoard::get_text(const std::string& path) {
  auto b = fetch(path);
  if (!b) return b.error();
  return std::string(b.value().begin(), b.value().end());
}

Status HttpBoard::observe(const std::string& note) {
  auto cp = open_checkpoint(note, verifier_);
  if (!cp) return cp.error();
  std::optional<std::string> prev_note;
  Checkpoint prev;
  {
    std::lock_guard lk(mu_);
    prev_note = trusted_note_;
    prev = trusted_;
  }
  const Checkpoint& now = cp.value();
  auto fork = [&](std::string reason, std::vector<Hash> proof) -> Status {
    ForkEvidence ev{verifier_.vkey(), reason, *prev_note, note, std::move(proof)};
    std::lock_guard lk(mu_);
    fork_ = ev;
    return make_error(Errc::fork, reason);
  };
  if (prev_note) {
    if (now.size == prev.size) {
      if (now.root != prev.root) return fork("two signed checkpoints of size " + std::to_string(now.size) + " with different roots", {});
      return {};
    }
    const bool grows = now.size > prev.size;
    const Checkpoint& small = grows ? prev : now;
    const Checkpoint& big = grows ? now : prev;
    if (small.size > 0) {
      auto proof = consistency_proof(small.size, big.size);
      if (!proof) {
        if (proof.error().code == Errc::io) return proof.error();
        return fork("log cannot prove checkpoint " + std::to_string(small.size) + " consistent with " +
                        std::to_string(big.size) + ": " + proof.error().message, {});
      }
      if (!verify_consistency(small.size, big.size, proof.value(), small.root, big.root)) {
        return fork("consistency proof from size " + std::to_string(small.size) + " to " +
                        std::to_string(big.size) + " does not verify", proof.value());
      }
    }
    if (!grows) return {};
  }
  if (!options_.state_path.empty()) {
    if (Status st = write_file_durably(options_.state_path, note); !st) return st;
  }
  std::lock_guard lk(mu_);
  // Another thread may have trusted a larger checkpoint meanwhile (it proved consistency too).
  if (!trusted_note_ || trusted_.size < now.size) {
    trusted_note_ = note;
    trusted_ = now;
  }
  return {};
}

Result<std::string> HttpBoard::checkpoint() {
  auto text = get_text("/checkpoint");
  if (!text) return text.error();
  if (Status st = observe(text.value()); !st) return st.error();
  return text;
}

Result<AppendReceipt> HttpBoard::append(std::span<const std::uint8_t> entry) {
  if (entry.size() > kMaxEntrySize) return make_error(Errc::too_large, "entry over 65,535 bytes");
  // Appending is idempotent (the same entry returns its original index), so a request lost with
  // its connection is retried, a bounded number of times.
  std::unique_lock lk(mu_);
  const std::string body(entry.begin(), entry.end());
  httplib::Result res = client_->Post("/add", body, "application/octet-stream");
  for (int attempt = 0; attempt < 3 && !res; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20 << attempt));
    res = client_->Post("/add", body, "application/octet-stream");
  }
  lk.unlock();
  if (!res) return make_error(Errc::io, std::string("POST /add: ") + httplib::to_string(res.error()));
  if (res->status != 200) {
    return response_error("POST /add", *res);
  }
  const json j = json::parse(res->body, nullptr, false);
  if (!j.is_object() || !j.contains("index") || !j["index"].is_number_unsigned() || !j.contains("proof") ||
      !j.contains("checkpoint") || !j["checkpoint"].is_string() || !j.contains("duplicate") ||
      !j["duplicate"].is_boolean()) {
    return make_error(Errc::malformed, "POST /add: response is not {index, duplicate, proof, checkpoint}");
  }
  AppendReceipt r;
  r.index = j["index"].get<std::uint64_t>();
  r.duplicate = j["duplicate"].get<bool>();
  auto proof = hashes_from_json(j["proof"]);
  if (!proof) return proof.error();
  r.proof = std::move(proof).value();
  r.checkpoint = j["checkpoint"].get<std::string>();
  auto cp = open_checkpoint(r.checkpoint, verifier_);
  if (!cp) return make_error(Errc::bad_signature, "receipt checkpoint: " + cp.error().message);
  if (Status st = verify_inclusion(leaf_hash(entry), r.index, cp.value().size, r.proof, cp.value().root); !st) {
    return make_error(Errc::bad_proof, "receipt inclusion proof: " + st.error().message);
  }
  if (Status st = observe(r.checkpoint); !st) return st.error();
  return r;
}

Result<std::vector<Bytes>> HttpBoard::read(std::uint64_t begin, std::uint64_t end) {
  if (begin > end) return make_error(Errc::invalid_argument, "read: begin > end");
  if (begin == end) return std::vector<Bytes>{};
  Checkpoint cp;
  {
    std::lock_guard lk(mu_);
    if (!trusted_note_ || trusted_.size < end) {
      cp.size = 0;
    } else {
      cp = trusted_;
    }
  }
  if (cp.size < end) {
    auto note = checkpoint();
    if (!note) return note.error();
    std::lock_guard lk(mu_);
    cp = trusted_;
  }
  if (cp.size < end) return make_error(Errc::not_found, "read beyond the log's checkpoint");
  // Entries come from entry bundles; each is tied to the trusted checkpoint by an inclusion proof.
  std::vector<Bytes> out;
  for (std::uint64_t tile = begin / 256; tile * 256 < end; ++tile) {
    const std::uint64_t start = tile * 256;
    const auto width = static_cast<unsigned>(std::min<std::uint64_t>(256, cp.size - start));
    auto bundle = fetch(entry_bundle_path(tile, width));
    if (!bundle) return bundle.error();
    auto entries = split_entry_bundle(bundle.value());
    if (!entries) return entries.error();
    if (entries.value().size() != width) return make_error(Errc::malformed, "entry bundle has the wrong width");
    for (std::uint64_t i = std::max(begin, start); i < std::min(end, start + width); ++i) {
      Bytes& e = entries.value()[static_cast<std::size_t>(i - start)];
      auto proof = inclusion_proof(i, cp.size);
      if (!proof) return proof.error();
      if (Status st = verify_inclusion(leaf_hash(e), i, cp.size, proof.value(), cp.root); !st) {
        return make_error(Errc::bad_proof, "entry " + std::to_string(i) + " is not in the checkpoint: " + st.error().message);
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

Result<std::vector<Hash>> HttpBoard::inclusion_proof(std::uint64_t index, std::uint64_t size) {
  auto text = get_text("/proof/inclusion?index=" + std::to_string(index) + "&size=" + std::to_string(size));
  if (!text) return text.error();
  const json j = json::parse(text.value(), nullptr, false);
  if (!j.is_object() || !j.contains("proof")) return make_error(Errc::malformed, "inclusion proof response");
  return hashes_from_json(j["proof"]);
}

Result<std::vector<Hash>> HttpBoard::consistency_proof(std::uint64_t size1, std::uint64_t size2) {
  auto text = get_text("/proof/consistency?size1=" + std::to_string(size1) + "&size2=" + std::to_string(size2));
  if (!text) return text.error();
  const json j = json::parse(text.value(), nullptr, false);
  if (!j.is_object() || !j.contains("proof")) return make_error(Errc::malformed, "consistency proof response");
  return hashes_from_json(j["proof"]);
}

Status HttpBoard::add_cosignature(std::uint64_t size, const std::string& vkey, const NoteSignature& sig) {
  std::string line = format_signature_line(sig);
  line.pop_back();
  const json body{{"size", size}, {"vkey", vkey}, {"line", line}};
  std::unique_lock lk(mu_);
  httplib::Result res = client_->Post("/cosign", body.dump(), "application/json");
  lk.unlock();
  if (!res) return make_error(Errc::io, std::string("POST /cosign: ") + httplib::to_string(res.error()));
  if (res->status != 200) {
    return response_error("POST /cosign", *res);
  }
  return {};
}

}  // namespace gopa::bulletin
