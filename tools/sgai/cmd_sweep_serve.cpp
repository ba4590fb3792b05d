/* The analyst's side of a campaign (docs/sweep.md):
 *   suggest CAMPAIGN.json [--dir D] [--runs K] [--exploitation E]   the assistant's next runs, kept
 *   accept CAMPAIGN.json [--dir D] [--point N]...                     queues them (all, or those named)
 *   serve CAMPAIGN.json [--dir D] [--port P]                          the same on a web page, on
 *                                                                    127.0.0.1 only (cpp-httplib)
 * The page (tools/web/sweep.html) is compiled in; its API answers JSON: GET /api/state, POST
 * /api/suggest {"runs", "exploitation"}, POST /api/accept {"points": [...]}. */
#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/sweep/assistant.hpp"
#include "core/sweep/campaign.hpp"
#include "core/sweep/folder.hpp"
#include "core/sweep/runs.hpp"
#include "core/sweep/store.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

namespace sgai::cli {

extern const char* const kSweepPage; // tools/web/sweep.html, compiled in (sweep_page.cpp)

namespace {

using namespace sgai::sweep;
using nlohmann::json;

struct ServeArgs {
  std::string campaign, dir;
  int64_t runs = 10, port = 8765;
  double exploitation = 0.66;
  std::vector<int64_t> points;
};

uint32_t cores()
{
  return std::max(1u, std::thread::hardware_concurrency());
}

/** The finished runs, the points taken (every run's), the forecast over them. */
struct View {
  std::vector<RunRecord> records;
  std::vector<Result> results;
  std::set<uint64_t> taken;
  Forecast forecast;
};

View view_of(const Campaign& c, const Space& space, const CampaignStore& store)
{
  View v;
  v.records      = store.runs();
  uint64_t owing = 0;
  for (const auto& r : v.records) {
    v.taken.insert(r.point);
    if (r.status == "done")
      v.results.push_back({space.point(r.point), r.objective});
    if (r.status == "running" || r.status == "queued")
      ++owing;
  }
  SlaState sla = sla_of(c, store, v.records, cores());
  sla.running  = owing;
  double eps   = c.eps > 0 ? c.eps : kDefaultEps;
  size_t min   = c.min_points > 0 ? c.min_points : default_min_points(space);
  v.forecast   = forecast(space, v.results, v.taken, c.minimise, sla, eps, min);
  return v;
}

/** Copper's suggestion for `runs` runs at an exploitation level, kept as the campaign's current
 *  suggestion (replacing the previous one). Seeded by the campaign's seed and its run count. */
std::vector<Suggested> make_suggestion(const Campaign& c, const Space& space, CampaignStore& store, uint64_t runs,
                                       double exploitation)
{
  if (not(exploitation >= 0 && exploitation <= 1))
    throw UsageError("--exploitation lies in [0, 1]");
  View v = view_of(c, space, store);
  if (v.forecast.possible != std::numeric_limits<uint64_t>::max())
    runs = std::min<uint64_t>(runs, v.forecast.possible);
  std::mt19937_64 rng(c.seed * 7919 + v.records.size());
  DoeModel model = main_effects(space, v.results, c.minimise);
  auto points    = suggest(space, v.forecast, v.results, c.minimise, exploitation, runs, model, c.beta, v.taken, rng);
  std::set<uint64_t> pending;
  for (const auto& cluster : v.forecast.pending)
    for (const auto& p : cluster)
      pending.insert(space.index(p));
  std::vector<Suggested> out;
  double now = now_s();
  for (const auto& p : points) {
    uint64_t i = space.index(p);
    out.push_back({0, i, now, exploitation, pending.count(i) != 0});
  }
  store.set_suggestions(out);
  return store.suggestions();
}

json values_of(const Space& space, uint64_t point)
{
  json a = json::array();
  for (uint32_t x : space.point(point))
    a.push_back(x);
  return a;
}

json state_json(const Campaign& c, const Space& space, const CampaignStore& store)
{
  View v = view_of(c, space, store);
  json j;
  j["name"]       = c.name;
  j["objective"]  = c.objective;
  j["goal"]       = c.minimise ? "minimise" : "maximise";
  j["points"]     = space.count();
  j["parameters"] = json::array();
  for (const auto& p : c.parameters) {
    json vals = json::array();
    for (const auto& x : p.values)
      vals.push_back(shown_value(x));
    j["parameters"].push_back({{"name", p.name}, {"values", vals}});
  }
  j["counts"] = {{"done", store.count("done")},
                 {"running", store.count("running")},
                 {"queued", store.count("queued")},
                 {"failed", store.count("failed")}};
  std::map<uint64_t, int> cluster;
  for (size_t m = 0; m < v.forecast.members.size(); ++m)
    cluster[space.index(v.forecast.members[m])] = v.forecast.clusters.label[m];
  j["runs"]             = json::array();
  const RunRecord* best = nullptr;
  for (const auto& r : v.records) {
    json run         = {{"id", r.id},
                        {"point", r.point},
                        {"values", values_of(space, r.point)},
                        {"status", r.status},
                        {"origin", r.origin},
                        {"attempts", r.attempts},
                        {"wall_s", r.wall_s},
                        {"cluster", cluster.count(r.point) ? cluster[r.point] : -1}};
    run["objective"] = std::isfinite(r.objective) ? json(r.objective) : json(nullptr);
    j["runs"].push_back(run);
    if (r.status == "done" &&
        (best == nullptr || (c.minimise ? r.objective < best->objective : r.objective > best->objective)))
      best = &r;
  }
  j["best"] = best ? json{{"id", best->id}, {"objective", best->objective}, {"values", values_of(space, best->point)}}
                   : json(nullptr);
  const Forecast& f = v.forecast;
  j["sla"] = {{"possible", f.possible == std::numeric_limits<uint64_t>::max() ? json(nullptr) : json(f.possible)},
              {"max_runs", c.max_runs > 0 ? json(c.max_runs) : json(nullptr)},
              {"deadline_left_s",
               std::isfinite(c.deadline_s) ? json(c.deadline_s - (now_s() - store.created())) : json(nullptr)},
              {"clusters", f.clusters.count},
              {"pending", f.pending_total},
              {"violation", f.violation}};
  j["suggestions"] = json::array();
  for (const auto& s : store.suggestions())
    j["suggestions"].push_back({{"point", s.point},
                                {"values", values_of(space, s.point)},
                                {"inside", s.inside},
                                {"exploitation", s.exploitation}});
  return j;
}

void print_suggestion(const Campaign& c, const Space& space, const std::vector<Suggested>& s)
{
  std::cout << s.size() << " suggested run" << (s.size() == 1 ? "" : "s") << " (sgai sweep accept queues them):\n";
  for (const auto& x : s) {
    std::cout << "  point " << x.point << (x.inside ? " (in a cluster of interest)" : " (exploring)") << ":";
    Point p = space.point(x.point);
    for (size_t d = 0; d < p.size(); ++d)
      std::cout << " " << c.parameters[d].name << "=" << shown_value(c.parameters[d].values[p[d]]);
    std::cout << "\n";
  }
}

int run_suggest(const ServeArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  CampaignStore store(existing_database(campaign_folder(a.dir, c)), c);
  print_suggestion(c, space, make_suggestion(c, space, store, uint64_t(a.runs), a.exploitation));
  return 0;
}

int run_accept(const ServeArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  CampaignStore store(existing_database(campaign_folder(a.dir, c)), c);
  std::vector<uint64_t> points;
  std::set<uint64_t> suggested;
  for (const auto& s : store.suggestions())
    suggested.insert(s.point);
  if (a.points.empty())
    points.assign(suggested.begin(), suggested.end());
  for (int64_t p : a.points) {
    if (p < 0 || uint64_t(p) >= space.count())
      throw UsageError("--point " + std::to_string(p) + " is not a point of the space (0 to " +
                       std::to_string(space.count() - 1) + ")");
    points.push_back(uint64_t(p));
  }
  auto ids = store.accept(points, now_s());
  std::cout << "Queued " << ids.size() << " run" << (ids.size() == 1 ? "" : "s") << " (sgai sweep run starts them)\n";
  return 0;
}

/** The page's requests (external input, read as strictly as a file; keys beyond these are left
 *  alone). A bad one is an InputError naming "request body", the place and the value. */
struct SuggestRequest {
  uint64_t runs       = 10;
  double exploitation = 0.66;
};

SuggestRequest read_suggest_request(const std::string& body)
{
  auto doc = sgai::json::parse(body, "request body");
  auto o   = doc.object();
  SuggestRequest q;
  if (auto v = o.optional("runs"))
    q.runs = uint64_t(v->integer(0));
  if (auto v = o.optional("exploitation"))
    q.exploitation = v->number();
  return q;
}

std::vector<uint64_t> read_accept_request(const std::string& body, const Space& space)
{
  auto doc = sgai::json::parse(body, "request body");
  std::vector<uint64_t> points;
  for (const auto& p : doc.object().required("points").array()) {
    auto point = p.as_uint64();
    if (not point || *point >= space.count())
      p.fail("not a point of the space: " + p.shown() + " (0 to " + std::to_string(space.count() - 1) + ")");
    points.push_back(*point);
  }
  return points;
}

int run_serve(const ServeArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  auto db     = existing_database(campaign_folder(a.dir, c));
  {
    CampaignStore check(db, c);
  } // another campaign's database: refused before serving
  std::mutex m;
  httplib::Server server;
  auto fail = [](httplib::Response& res, int status, const std::string& what) {
    res.status = status;
    res.set_content(json{{"error", what}}.dump(), "application/json");
  };
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kSweepPage, "text/html; charset=utf-8");
  });
  server.Get("/api/state", [&](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> l(m);
    try {
      CampaignStore store(db, c);
      res.set_content(state_json(c, space, store).dump(), "application/json");
    } catch (const std::exception& e) {
      fail(res, 500, e.what());
    }
  });
  server.Post("/api/suggest", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> l(m);
    SuggestRequest q;
    try {
      q = read_suggest_request(req.body);
    } catch (const InputError& e) {
      return fail(res, 400, e.what());
    }
    try {
      CampaignStore store(db, c);
      make_suggestion(c, space, store, q.runs, q.exploitation);
      res.set_content(state_json(c, space, store).dump(), "application/json");
    } catch (const std::exception& e) {
      fail(res, 400, e.what());
    }
  });
  server.Post("/api/accept", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> l(m);
    std::vector<uint64_t> points;
    try {
      points = read_accept_request(req.body, space);
    } catch (const InputError& e) {
      return fail(res, 400, e.what());
    }
    try {
      CampaignStore store(db, c);
      auto ids = store.accept(points, now_s());
      res.set_content(json{{"queued", ids}}.dump(), "application/json");
    } catch (const std::exception& e) {
      fail(res, 500, e.what());
    }
  });
  int port = int(a.port);
  if (port == 0)
    port = server.bind_to_any_port("127.0.0.1");
  else if (not server.bind_to_port("127.0.0.1", port))
    port = -1;
  if (port <= 0)
    throw RunError("cannot listen on 127.0.0.1:" + std::to_string(a.port) + " (in use?)");
  std::cout << "Serving campaign " << c.name << " on http://127.0.0.1:" << port << "/ (Ctrl-C stops)" << std::endl;
  if (not server.listen_after_bind())
    throw RunError("the web server stopped");
  return 0;
}

} // namespace

void add_sweep_analyst_commands(CLI::App& sweep, Action& action)
{
  auto add = [&](const char* name, const char* help) {
    auto a    = std::make_shared<ServeArgs>();
    auto* cmd = sweep.add_subcommand(name, help);
    add_path(cmd, "campaign", a->campaign, "The campaign file (JSON, docs/sweep.md)")->required();
    add_path(cmd, "--dir", a->dir, "The campaign's folder (default: <campaign name>.campaign beside its file)");
    return std::make_pair(cmd, a);
  };
  auto sug_pair = add("suggest", "Copper's suggested next runs (kept until accepted or replaced)");
  auto* sug     = sug_pair.first;
  auto sa       = sug_pair.second;
  add_count(sug, "--runs", sa->runs, "How many (default 10, at most the runs the SLA still allows)", 1, 1000000);
  add_real(sug, "--exploitation", sa->exploitation,
           "Share of them inside the clusters of good runs, in [0, 1] (default 0.66)", 0, 1);
  sug->callback([sa, &action]() { action = [sa]() { return run_suggest(*sa); }; });
  auto acc_pair = add("accept", "Queue the suggested runs (all, or the --point ones)");
  auto* acc     = acc_pair.first;
  auto aa       = acc_pair.second;
  acc->add_option("--point", aa->points, "A point to queue (repeatable; default: every suggested one)");
  acc->callback([aa, &action]() { action = [aa]() { return run_accept(*aa); }; });
  auto srv_pair = add("serve", "The analyst's web page of a campaign, on 127.0.0.1");
  auto* srv     = srv_pair.first;
  auto va       = srv_pair.second;
  add_count(srv, "--port", va->port, "The port (default 8765; 0: any free one)", 0, 65535);
  srv->callback([va, &action]() { action = [va]() { return run_serve(*va); }; });
}

} // namespace sgai::cli
