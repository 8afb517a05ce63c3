//===- BindingPlanJson.cpp - The binding plan as JSON ---------------------===//
//
// The request and the result of planBindingProblems as JSON: what the C API's
// dslcBindingPlan (runtime/CApi.h) passes to and from the Python package.
//
//===----------------------------------------------------------------------===//
#include "contract/BindingPlan.h"

#include <nlohmann/json.hpp>

namespace dslc::contract {

using json = nlohmann::ordered_json;

const char *problemKindName(BindProblem::Kind k) {
  switch (k) {
  case BindProblem::World:
    return "world";
  case BindProblem::UnknownName:
    return "unknown_name";
  case BindProblem::RankMismatch:
    return "rank";
  case BindProblem::NoValue:
    return "no_value";
  case BindProblem::NotInteger:
    return "not_integer";
  case BindProblem::NoSize:
    return "no_size";
  case BindProblem::LikeMissing:
    return "like_missing";
  case BindProblem::NoData:
    return "no_data";
  case BindProblem::Collective:
    return "collective";
  case BindProblem::Comm:
    return "comm";
  case BindProblem::Constraint:
    return "constraint";
  case BindProblem::SameSize:
    return "same_size";
  case BindProblem::TooLarge:
    return "too_large";
  }
  return "?";
}

const char *fillKey(Fill f) {
  switch (f) {
  case Fill::Seeded:
    return "seeded";
  case Fill::Poison:
    return "poison";
  case Fill::Zero:
    return "zero";
  case Fill::ZeroOnce:
    return "zero_once";
  case Fill::PeerTable:
    return "peer_table";
  case Fill::Scalar:
    return "scalar";
  }
  return "?";
}

Expected<BindingRequest> readBindingRequest(const std::string &text) {
  try {
    json j = json::parse(text);
    if (!j.is_object())
      return Failure{"binding request: not a JSON object"};
    BindingRequest req;
    req.world = j.value("world", 1);
    if (j.contains("shapes"))
      for (auto &[name, shape] : j.at("shapes").items())
        req.shapes[name] = shape.get<std::vector<int64_t>>();
    if (j.contains("scalars"))
      for (auto &[name, v] : j.at("scalars").items())
        req.scalars[name] = v.get<double>();
    if (j.contains("bound"))
      for (const json &name : j.at("bound"))
        req.bound.insert(name.get<std::string>());
    req.fromData = j.value("from_data", false);
    if (j.contains("collective") && !j.at("collective").is_null()) {
      std::string c = j.at("collective").get<std::string>();
      req.collective = parseCollective(c);
      if (!req.collective)
        return Failure{"binding request: unknown collective '" + c +
                       "' (all_reduce, reduce_scatter or all_gather)"};
    }
    return req;
  } catch (const std::exception &e) {
    return Failure{std::string("binding request: ") + e.what()};
  }
}

std::string bindingResultJson(const BindingResult &r) {
  const BindingPlan &plan = r.plan;
  auto nameOf = [&](int i) -> json {
    if (i < 0 || static_cast<size_t>(i) >= plan.args.size())
      return nullptr;
    return plan.args[i].name;
  };
  json args = json::array();
  for (const ArgBinding &a : plan.args)
    args.push_back({{"name", a.name},
                    {"role", roleName(a.role)},
                    {"dtype", dtypeName(a.dtype)},
                    {"tensor", a.isTensor},
                    {"shape", a.shape},
                    {"bytes", a.bytes},
                    {"symmetric", a.symmetric},
                    {"in_heap", a.inHeap},
                    {"table_of", nameOf(a.tableOf)},
                    {"fill", fillKey(a.fill)},
                    {"scalar", a.scalar}});
  json problems = json::array();
  for (const BindProblem &p : r.problems)
    problems.push_back({{"kind", problemKindName(p.kind)},
                        {"arg", nameOf(p.arg)},
                        {"text", p.text}});
  json out = {{"kernel", plan.kernel},
              {"world", plan.world},
              {"tiles", plan.tiles},
              {"args", args},
              {"problems", problems}};
  return out.dump();
}

} // namespace dslc::contract
