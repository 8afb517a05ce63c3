//===- BindingPlanTest.cpp - Every argument's binding decision ------------===//
#include "contract/BindingPlan.h"
#include "tests/contract/ArgBuilders.h"

#include <catch2/catch.hpp>

#include <set>

using namespace dslc::contract;
using dslc::contract::test::scalar;
using dslc::contract::test::tensor;

namespace {
/// One tensor of every role, a grid of blocks of 256 over x.
KernelMetadata everyRole() {
  KernelMetadata md;
  md.kernel = "k";
  ArgSpec table = tensor("tbl", DType::UInt64, 1, Role::PeerTable);
  table.peerTableFor = "pad";
  ArgSpec scratch = tensor("ll", DType::Int64, 1, Role::Scratch);
  scratch.packets = {1, 256 * 2};
  ArgSpec sym = tensor("x", DType::BFloat16, 1, Role::Input);
  sym.symmetric = true;
  md.args = {table,
             tensor("pad", DType::Int32, 2, Role::SignalPad),
             sym,
             tensor("ws", DType::BFloat16, 2, Role::InOut),
             scratch,
             tensor("none", DType::Float32, 2, Role::Unused),
             scalar("n", DType::Int64),
             ArgSpec::output("out", DType::BFloat16, 1, "x")};
  GridExtent g;
  g.param = "x";
  g.block = 256;
  md.grid = {g};
  return md;
}
} // namespace

TEST_CASE("every role's fill, shape, heap and symmetry", "[binding]") {
  KernelMetadata md = everyRole();
  BindingRequest req;
  req.world = 4;
  req.shapes = {{"x", {1000}}, {"ws", {4, 1000}}, {"n", {7}}};
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE(plan);
  const BindingPlan &p = *plan;
  CHECK(p.tiles == 4);
  auto arg = [&](const char *name) { return p.args.at(p.find(name)); };
  CHECK(arg("tbl").fill == Fill::PeerTable);
  CHECK(arg("tbl").shape == std::vector<int64_t>{4});
  CHECK(arg("tbl").tableOf == p.find("pad"));
  CHECK_FALSE(arg("tbl").inHeap);
  CHECK(arg("pad").fill == Fill::ZeroOnce);
  CHECK(arg("pad").shape == std::vector<int64_t>{4, 4}); // tiles x world
  CHECK(arg("pad").symmetric); // the target of a peer table
  CHECK(arg("x").fill == Fill::Seeded);
  CHECK(arg("x").symmetric);
  CHECK(arg("ws").fill == Fill::ZeroOnce);
  CHECK(arg("ll").fill == Fill::ZeroOnce);
  // 2 parities x 1 put x 4 senders x 4 tiles x 512 bytes, in int64s.
  CHECK(arg("ll").shape == std::vector<int64_t>{2 * 4 * 4 * 512 / 8});
  CHECK(arg("none").shape == std::vector<int64_t>{1, 1});
  CHECK(arg("n").fill == Fill::Scalar);
  CHECK(arg("n").scalar == 7);
  CHECK(arg("out").role == Role::Output);
  CHECK(arg("out").fill == Fill::Poison);
  CHECK(arg("out").shape == std::vector<int64_t>{1000}); // like x
  CHECK_FALSE(arg("out").inHeap);
  CHECK(arg("out").bytes == 2000);
  CHECK(arg("none").bytes == 16); // at least 16
  CHECK(p.inputs() == std::vector<int>{p.find("x")});
  CHECK(p.outputs() == std::vector<int>{p.find("out")});
  CHECK(p.heapBytes() > (size_t(4) << 20));
  CHECK(std::string(fillName(Fill::ZeroOnce)) == "zeroed once");
}

TEST_CASE("a torch.zeros output is zeroed before each launch", "[binding]") {
  KernelMetadata md = everyRole();
  md.args.back().zeroed = true;
  BindingRequest req;
  req.world = 4;
  req.shapes = {{"x", {1000}}, {"ws", {4, 1000}}, {"n", {7}}};
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE(plan);
  const ArgBinding &out = plan->args.at(plan->find("out"));
  CHECK(out.fill == Fill::Zero);
  CHECK(out.shape == std::vector<int64_t>{1000});
  CHECK(std::string(fillName(Fill::Zero)) == "zeroed");
  // Still an output: made per call and checked.
  CHECK(plan->outputs() == std::vector<int>{plan->find("out")});
}

TEST_CASE("every problem is listed", "[binding]") {
  KernelMetadata md = everyRole();
  BindingRequest req;
  req.world = 0;
  req.shapes = {{"x", {10, 10}}, {"nope", {1}}};
  req.scalars = {{"x", 1}};
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE_FALSE(plan);
  const std::string &e = plan.error();
  CHECK(e.rfind("kernel k: cannot bind its arguments:", 0) == 0);
  CHECK(e.find("world size 0 is not positive") != std::string::npos);
  CHECK(e.find("--size nope: the kernel has no argument 'nope'") !=
        std::string::npos);
  CHECK(e.find("--scalar x: the kernel has no scalar 'x'") !=
        std::string::npos);
  CHECK(e.find("'x' has rank 1, the size has 2 extent(s)") !=
        std::string::npos);
  CHECK(e.find("inout 'ws' (bfloat16, rank 2) has no size") !=
        std::string::npos);
  CHECK(e.find("scalar 'n' (int) has no value and no default") !=
        std::string::npos);
}

TEST_CASE("constraints, same sizes, overflow", "[binding]") {
  KernelMetadata md;
  md.kernel = "k";
  md.args = {tensor("a", DType::Float32, 1, Role::Input),
             tensor("b", DType::Float32, 1, Role::Input)};
  Constraint c;
  c.param = "a";
  c.op = "<=";
  c.value = int64_t(100);
  md.constraints = {c};
  SameSize s;
  s.param = "b";
  s.as = "a";
  s.where = "k.py:3:4";
  md.sameSizes = {s};
  BindingRequest req;
  req.shapes = {{"a", {200}}, {"b", {300}}};
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().find("'a' of shape 200: dim 0 is 200, but the kernel "
                          "needs <= 100") != std::string::npos);
  CHECK(plan.error().find("'b' dim 0 is 300, but 'a' dim 0 is 200") !=
        std::string::npos);
  req.shapes = {{"a", {50}}, {"b", {int64_t(1) << 62}}};
  plan = planBinding(md, req);
  REQUIRE_FALSE(plan);
  CHECK(plan.error().find("is too large") != std::string::npos);
}

TEST_CASE("collective shapes", "[binding]") {
  using C = CollectiveKind;
  CHECK(parseCollective("all-gather") == C::AllGather);
  CHECK(parseCollective("ReduceScatter") == C::ReduceScatter);
  CHECK_FALSE(parseCollective("broadcast"));
  Expected<CollectiveShape> s = collectiveCounts(C::ReduceScatter, 8, 2);
  REQUIRE(s);
  CHECK(s->input == 8);
  CHECK(s->output == 4);
  CHECK_FALSE(collectiveCounts(C::AllGather, 7, 2));
  CHECK(collectiveCounts(C::AllGather, 7, 2)
            .error()
            .find("not a multiple of the world size 2") != std::string::npos);
  CHECK_FALSE(collectiveCounts(C::AllReduce, 0, 2));
  CHECK(collectiveArgShape(C::AllGather, Role::Input, 1, 8, 2) ==
        std::vector<int64_t>{4});
  CHECK(collectiveArgShape(C::AllGather, Role::Output, 2, 8, 2) ==
        std::vector<int64_t>{2, 4});
  CHECK(collectiveArgShape(C::ReduceScatter, Role::Output, 1, 8, 2) ==
        std::vector<int64_t>{4});
  CHECK(collectiveArgShape(C::AllReduce, Role::InOut, 2, 8, 2) ==
        std::vector<int64_t>{2, 8});
  CHECK(collectiveArgShape(C::AllReduce, Role::InOut, 1, 8, 2) ==
        std::vector<int64_t>{16});
  CHECK(collectiveArgShape(C::AllReduce, Role::SignalPad, 2, 8, 2).empty());
}

TEST_CASE("problems by kind; what the caller binds itself", "[binding]") {
  KernelMetadata md = everyRole();
  BindingRequest req;
  req.world = 2;
  req.shapes = {{"nope", {1}}};
  BindingResult r = planBindingProblems(md, req);
  auto kinds = [&] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const BindProblem &p : r.problems)
      out.push_back(
          {problemKindName(p.kind), p.arg < 0 ? "" : r.plan.args[p.arg].name});
    return out;
  };
  using K = std::vector<std::pair<std::string, std::string>>;
  CHECK(kinds() == K{{"unknown_name", ""},
                     {"no_size", "x"},
                     {"no_size", "ws"},
                     {"no_value", "n"}}); // out is like x: x's problem
  // planBinding's message is the problems' texts, one a line
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE_FALSE(plan);
  for (const BindProblem &p : r.problems)
    CHECK(plan.error().find("\n  " + p.text) != std::string::npos);
  // x, ws and n bound by the caller (out from x, so still unsized)
  req.shapes.clear();
  req.bound = {"x", "ws", "n"};
  r = planBindingProblems(md, req);
  CHECK(kinds() == K{{"like_missing", "out"}});
  req.bound.insert("out");
  r = planBindingProblems(md, req);
  CHECK(r.problems.empty());
  // the peer table's target is known before any size
  CHECK(r.plan.args[0].tableOf == 1);
  CHECK(r.plan.args[1].symmetric);
}

TEST_CASE("a given pad or scratch shape is the caller's", "[binding]") {
  KernelMetadata md = everyRole();
  BindingRequest req;
  req.world = 2;
  req.shapes = {{"x", {1000}},
                {"ws", {2, 1000}},
                {"n", {7}},
                {"pad", {6, 2}},
                {"ll", {5}}};
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE(plan);
  CHECK(plan->args[plan->find("pad")].shape == std::vector<int64_t>{6, 2});
  CHECK(plan->args[plan->find("ll")].shape == std::vector<int64_t>{5});
  CHECK(plan->args[plan->find("tbl")].shape == std::vector<int64_t>{2});
}

TEST_CASE("outputs and workspaces sized from the data", "[binding]") {
  KernelMetadata md = everyRole();
  md.args.back().like.clear(); // out: sized by nothing but the collective
  BindingRequest req;
  req.world = 2;
  req.fromData = true;
  req.bound = {"n"};
  req.shapes = {{"x", {1000}}};
  BindingResult r = planBindingProblems(md, req);
  REQUIRE(r.problems.size() == 1); // out: no collective
  CHECK(r.problems[0].kind == BindProblem::NoSize);
  CHECK(r.plan.args[3].shape == std::vector<int64_t>{2, 1000}); // ws
  for (auto [c, want] : {std::pair{"all_reduce", int64_t(1000)},
                         std::pair{"reduce_scatter", int64_t(500)},
                         std::pair{"all_gather", int64_t(2000)}}) {
    req.collective = parseCollective(c);
    r = planBindingProblems(md, req);
    CHECK(r.problems.empty());
    CHECK(r.plan.args.back().shape == std::vector<int64_t>{want});
    CHECK(r.plan.args.back().fill == Fill::Poison);
  }
  req.collective = CollectiveKind::ReduceScatter;
  req.shapes = {{"x", {1001}}};
  r = planBindingProblems(md, req);
  REQUIRE(r.problems.size() == 2); // ws and out
  CHECK(r.problems[1].kind == BindProblem::Collective);
  CHECK(r.problems[0].text.find("size 1001 is not a multiple") !=
        std::string::npos);
  req.shapes.clear();
  req.bound.insert("x");
  r = planBindingProblems(md, req);
  REQUIRE(r.problems.size() == 2);
  CHECK(r.problems[0].kind == BindProblem::NoData);
  CHECK(r.plan.args[r.problems[0].arg].name == "ws");
}

TEST_CASE("the request and the plan as JSON", "[binding]") {
  Expected<BindingRequest> req = readBindingRequest(
      R"({"world": 2, "shapes": {"x": [1000]}, "scalars": {"n": 7},
          "bound": ["ws"], "from_data": true, "collective": "all-gather"})");
  REQUIRE(req);
  CHECK(req->world == 2);
  CHECK(req->shapes.at("x") == std::vector<int64_t>{1000});
  CHECK(req->scalars.at("n") == 7);
  CHECK(req->bound == std::set<std::string>{"ws"});
  CHECK(req->fromData);
  CHECK(req->collective == CollectiveKind::AllGather);
  CHECK_FALSE(readBindingRequest(R"({"collective": "broadcast"})"));
  CHECK_FALSE(readBindingRequest(R"({"shapes": {"x": "big"}})"));
  CHECK_FALSE(readBindingRequest("[1]"));

  BindingResult r = planBindingProblems(everyRole(), *req);
  std::string j = bindingResultJson(r);
  CHECK(j.find(R"({"name":"tbl","role":"peer_table","dtype":"uint64",)"
               R"("tensor":true,"shape":[2],)") != std::string::npos);
  CHECK(j.find(R"("table_of":"pad","fill":"peer_table")") != std::string::npos);
  CHECK(j.find(R"("problems":[])") != std::string::npos);
  CHECK(j.rfind(R"({"kernel":"k","world":2,"tiles":4,)", 0) == 0);
}

TEST_CASE("a problem carries the rule it breaks", "[binding]") {
  KernelMetadata md = everyRole();
  md.constraints = {{"x", 0, "==", int64_t(512)}};
  BindingRequest req;
  req.world = 2;
  req.shapes = {{"x", {1000}}, {"ws", {2, 1000}}, {"n", {7}}};
  BindingResult r = planBindingProblems(md, req);
  REQUIRE(r.problems.size() == 1);
  const BindProblem &p = r.problems[0];
  CHECK(p.kind == BindProblem::Constraint);
  CHECK(p.constraint == &md.constraints[0]);
  CHECK(p.actual == 1000);
  CHECK(r.plan.args[p.arg].name == "x");
  CHECK(r.plan.gridTiles == 4);
  // an int scalar past 2^53 is no integer a double holds
  md.constraints.clear();
  req.shapes.erase("n");
  req.scalars = {{"n", 1e16}};
  r = planBindingProblems(md, req);
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == BindProblem::NotInteger);
}

TEST_CASE("an output sized by the sizes it must equal", "[binding]") {
  // Helion's matmul: out = torch.empty([m, n]) with m = x.size(0),
  // n = y.size(1); the tiles relate out's dims to x's and y's (same_sizes),
  // which fix out's shape; a relation that is not equality does not.
  KernelMetadata md;
  md.kernel = "matmul";
  md.args = {tensor("x", DType::BFloat16, 2, Role::Input),
             tensor("y", DType::BFloat16, 2, Role::Input),
             ArgSpec::output("out", DType::BFloat16, 2, "")};
  auto rule = [](std::string p, unsigned d, std::string as, unsigned asDim) {
    SameSize s;
    s.param = std::move(p);
    s.dim = d;
    s.as = std::move(as);
    s.asDim = asDim;
    s.where = "matmul.py:1:1";
    return s;
  };
  md.sameSizes = {rule("x", 1, "y", 0), rule("out", 0, "x", 0),
                  rule("y", 1, "out", 1)};
  BindingRequest req;
  req.shapes = {{"x", {100, 64}}, {"y", {64, 30}}};
  Expected<BindingPlan> plan = planBinding(md, req);
  REQUIRE(plan);
  CHECK(plan->args[plan->find("out")].shape == std::vector<int64_t>{100, 30});
  CHECK(plan->args[plan->find("out")].fill == Fill::Poison);

  md.sameSizes[2].relation = SameSize::Relation::Ge;
  BindingResult r = planBindingProblems(md, req);
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == BindProblem::NoSize);
  CHECK(r.problems[0].arg == 2);
}
