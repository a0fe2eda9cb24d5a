// gopa audit --all and gopa train: the training runs of a board (training_audit.hpp).
#include "training_audit.hpp"

#include <cstdio>

#include "gopa/learn/data.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::cli {

namespace {

namespace gl = gopa::learn;
using json = nlohmann::json;

std::string fixed4(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", v);
  return b;
}

}  // namespace

TrainingRunsReport audit_training_runs(bulletin::Board& board, std::span<const gl::SessionOutcome> sessions,
                                       const std::string& data_dir) {
  TrainingRunsReport rep;
  auto audits = gl::audit_trainings(board, sessions);
  if (!audits) {
    rep.error = audits.error().message;
    rep.passed = false;
    return rep;
  }
  for (const gl::TrainingAudit& a : audits.value()) {
    const bool ok = a.passed();
    rep.passed = rep.passed && (ok || a.ignored);
    json r = {{"run_id", bulletin::to_hex(a.run_id)}, {"coordinator", bulletin::to_hex(a.signer)}, {"passed", ok},
              {"ignored", a.ignored}};
    json checks = json::array();
    for (const auto& c : a.checks) {
      checks.push_back({{"name", c.name}, {"status", bulletin::check_status_name(c.status)}, {"detail", c.detail}});
    }
    r["checks"] = checks;
    rep.lines.push_back(std::string(a.ignored ? "SKIP" : ok ? "PASS" : "FAIL") + " training run " + bulletin::to_hex(a.run_id).substr(0, 16) +
                        (a.manifest ? " (" + a.manifest->data + ", " + std::to_string(a.manifest->sessions.size()) +
                                          " rounds, " + protocol::noise_mode_name(a.manifest->noise) + " noise)"
                                    : ""));
    for (const auto& c : a.checks) {
      rep.lines.push_back("  " + std::string(bulletin::check_status_name(c.status)) + " " + c.name + (c.detail.empty() ? "" : " — " + c.detail));
    }
    if (a.manifest) {
      const gl::TrainingManifest& m = *a.manifest;
      r["data"] = m.data;
      r["rounds"] = m.sessions.size();
      r["learning_rate"] = m.learning_rate;
      r["clip"] = m.clip;
      r["model_digest"] = bulletin::to_hex(m.model);
      r["data_digest"] = bulletin::to_hex(m.data_digest);
      json ids = json::array();
      for (const auto& id : m.sessions) ids.push_back(bulletin::to_hex(id));
      r["sessions"] = ids;
    }
    // The recomputed models on the run's test split, when its data set is here.
    if (a.manifest && !a.models.empty()) {
      const gl::TrainingManifest& m = *a.manifest;
      try {
        const gl::Dataset data = gl::load_dataset(m.data, gl::find_data_dir(data_dir));
        if (gl::dataset_digest(data) != m.data_digest) {
          rep.lines.push_back("  SKIP test accuracy — the " + m.data + " data set here is not the run's (its digest differs)");
        } else {
          gl::Split split = gl::split(data, m.test_fraction, m.split_seed);
          gl::standardize(split);
          json acc = json::array();
          std::string line = "  test accuracy of w_0 … w_T, recomputed on " + m.data + "'s test split:";
          for (const gl::Model& w : a.models) {
            const double v = gl::accuracy(w, split.test);
            acc.push_back(v);
            line += ' ';
            line += fixed4(v);
          }
          r["test_accuracy"] = acc;
          rep.lines.push_back(line);
        }
      } catch (const std::runtime_error& e) {
        rep.lines.push_back("  SKIP test accuracy — data set " + m.data + " not available here: " + e.what());
      }
    }
    rep.runs.push_back(r);
  }
  return rep;
}

}  // namespace gopa::cli
