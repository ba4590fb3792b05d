#include "plugins/aiops_sim/simulator_impl.hpp"
#include "plugins/sim/clock.hpp"

namespace sgai::aiops_sim {

// ------------------------------------------------------------------------------------ set-up

std::vector<s4u::Host*> Simulator::hosts_of(const aiops::PoolSpec& p, const platform::Platform* platform) const
{
  std::vector<s4u::Host*> out;
  for (const std::string& name : p.hosts) {
    if (auto* h = s4u::Host::by_name_or_null(name)) {
      out.push_back(h);
      continue;
    }
    const platform::ClusterDesc* cluster = nullptr;
    if (platform != nullptr)
      for (const auto& c : platform->clusters)
        if (c.id == name)
          cluster = &c;
    if (cluster == nullptr)
      throw InputError(e_.file.string(), "pools/" + p.name,
                       "no host or cluster " + quote(name) + " in the platform " + e_.platform.string());
    for (uint32_t n = cluster->first_node; n < cluster->first_node + cluster->node_count; ++n) {
      const auto& node = platform->nodes[n];
      if (node.gpu_count > 0)
        for (uint32_t g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g)
          out.push_back(s4u::Host::by_name(platform->hosts[platform->gpus[g].host].name));
      else
        for (uint32_t h = node.first_cpu_host; h < node.first_cpu_host + node.cpu_host_count; ++h)
          out.push_back(s4u::Host::by_name(platform->hosts[h].name));
    }
  }
  return out;
}

void Simulator::compile(const platform::Platform* platform)
{
  store_ = s4u::Host::by_name_or_null(e_.store);
  if (store_ == nullptr)
    throw InputError(e_.file.string(), "store",
                     "no host " + quote(e_.store) + " in the platform " + e_.platform.string());
  if (e_.store_disk_read > 0) {
    disk_ = store_->create_disk("aiops-store-disk", e_.store_disk_read, e_.store_disk_write);
    disk_->seal();
  } else if (not store_->get_disks().empty())
    disk_ = store_->get_disks().front();

  std::map<std::string, uint32_t> pool_of_kind;
  for (size_t i = 0; i < e_.pools.size(); ++i) {
    Pool p;
    p.name  = e_.pools[i].name;
    p.hosts = hosts_of(e_.pools[i], platform);
    p.slots = uint32_t(p.hosts.size()) * e_.pools[i].slots_per_host;
    for (const auto& k : e_.pools[i].kinds)
      pool_of_kind.emplace(k, uint32_t(i)); // the first pool listing a kind runs it
    pools_.push_back(std::move(p));
  }
  std::map<std::string, int32_t> kind_index;
  std::map<std::string, int> spec_index;
  for (size_t i = 0; i < e_.pipelines.size(); ++i)
    spec_index[e_.pipelines[i].name] = int(i);
  double share = 0;
  for (const auto& ps : e_.pipelines) {
    CPipeline c;
    c.order  = ps.order;
    c.parent = ps.parent.empty() ? -1 : spec_index.at(ps.parent);
    std::map<std::string, uint16_t> index;
    for (size_t i = 0; i < ps.tasks.size(); ++i)
      index[ps.tasks[i].name] = uint16_t(i);
    for (const auto& ts : ps.tasks) {
      CTask t;
      if (not synth_.knows(ts.kind))
        throw InputError(e_.file.string(), "pipelines/" + ps.name + "/" + ts.name,
                         "the model files give no times for task kind " + quote(ts.kind) +
                             " (add it to the \"tasks\" section of a model file)");
      auto [it, added] = kind_index.emplace(ts.kind, int32_t(kinds_.size()));
      if (added)
        kinds_.push_back(ts.kind);
      t.kind        = it->second;
      t.kind_name   = ts.kind;
      t.pool        = pool_of_kind.at(ts.kind);
      t.probability = ts.probability;
      t.gate        = ts.gate ? *ts.gate : -1;
      if (ts.kind == "preprocess") {
        t.reads  = Reads::data;
        t.writes = Writes::data;
      } else if (ts.kind == "train") {
        t.reads  = Reads::data;
        t.writes = Writes::model;
      } else if (ts.kind == "compress") {
        t.reads  = Reads::model;
        t.writes = Writes::compressed;
      } else if (ts.kind == "evaluate" || ts.kind == "validate") {
        t.reads = Reads::model_and_test;
      } else if (ts.kind == "deploy") {
        t.reads = Reads::model;
      }
      t.parents = uint16_t(ts.after.size());
      c.tasks.push_back(std::move(t));
    }
    for (size_t i = 0; i < ps.tasks.size(); ++i)
      for (const auto& a : ps.tasks[i].after)
        c.tasks[index.at(a)].children.push_back(uint16_t(i));
    share += ps.share;
    shares_.push_back(share);
    specs_.push_back(std::move(c));
  }
  latest_.assign(specs_.size(), -1);
  if (e_.deployed.models > 0)
    retrain_spec_ = spec_index.at(e_.deployed.pipeline);
  factors_ = sim::NetworkFactors::current();
  hours_.resize(pools_.size() + 1);
  for (size_t i = 0; i < pools_.size(); ++i)
    hours_[i].slots = pools_[i].slots;
}

void Simulator::close_hour(size_t resource)
{
  Hours& h         = hours_[resource];
  const HourAcc& a = h.open.front();
  double from = double(h.first) * kHour, to = double(h.first + 1) * kHour;
  if (horizon_ > 0)
    to = std::min(to, std::max(from, horizon_));
  if (db_)
    db_->add(aiops::HourRow{int32_t(resource), h.first, a.busy, h.slots * (to - from), a.queued, a.started,
                            a.bytes_read, a.bytes_written});
  h.open.pop_front();
  ++h.first;
}

void Simulator::advance(size_t resource, double t)
{
  Hours& h = hours_[resource];
  auto now = int64_t(std::floor(t / kHour));
  while (h.first + int64_t(h.open.size()) <= now)
    h.open.emplace_back();
  // the running tasks' slot-seconds since the last change, hour by hour
  for (double a = h.last; a < t && h.running > 0;) {
    double b = std::min(t, (std::floor(a / kHour) + 1) * kHour);
    h.open[size_t(int64_t(std::floor(a / kHour)) - h.first)].busy += double(h.running) * (b - a);
    a = b;
  }
  h.last = t;
  while (h.first < now)
    close_hour(resource);
}

HourAcc& Simulator::hour_now(size_t resource)
{
  advance(resource, s4u::Engine::get_clock());
  return hours_[resource].open.back();
}

void Simulator::setup()
{
  if (options_.database) {
    aiops::Names names;
    for (const auto& p : e_.pipelines)
      names.pipelines.push_back(p.name);
    names.kinds      = kinds_;
    names.frameworks = synth_.frameworks();
    for (const auto& p : pools_)
      names.resources.push_back({p.name, "pool", int64_t(p.slots)});
    names.resources.push_back({e_.store, "store", 0});
    std::vector<std::pair<std::string, std::string>> run{
        {"experiment", e_.file.string()},
        {"platform", e_.platform.string()},
        {"duration_s", std::to_string(e_.duration_s)},
        {"transfers", e_.transfers == aiops::TransferMode::contended ? "contended" : "analytic"},
        {"strategy", e_.strategy},
        {"seed", std::to_string(e_.seed)},
        {"origin_hour", std::to_string(synth_.model().arrivals->origin_hour)}};
    db_ = std::make_unique<aiops::DatabaseWriter>(options_.output_dir / "aiops.sqlite", names, run);
  }
  drained_     = s4u::Semaphore::create(0);
  int32_t slot = 0;
  for (uint32_t i = 0; i < pools_.size(); ++i) {
    const auto& ps = e_.pools[i];
    for (auto* h : pools_[i].hosts)
      for (uint32_t k = 0; k < ps.slots_per_host; ++k) {
        int32_t id = slot++;
        Worker& w  = workers_.emplace_back();
        w.pool     = i;
        w.actor    = s4u::Actor::create("aiops-" + pools_[i].name + "-" + std::to_string(id), h,
                                        [this, &w, h, id]() { guarded([&]() { worker(w, h, id); }); });
        w.actor->daemonize();
      }
  }
  // deployed models: each deployed an age ago, its drift drawn
  if (e_.deployed.models > 0) {
    detector_wake_ = s4u::Semaphore::create(0);
    deployed_.resize(e_.deployed.models);
    std::uniform_real_distribution<double> age(0, e_.deployed.initial_age);
    for (uint32_t m = 0; m < deployed_.size(); ++m) {
      Deployed& d = deployed_[m];
      d.deployed  = -age(drift_rng_);
      d.drift     = draw_drift();
      d.metric    = synth_.metric(drift_rng_);
      schedule(m);
      for (const auto& t : e_.triggers)
        if (t.kind == "new_data")
          events_.push({std::exponential_distribution<double>(1 / t.value)(drift_rng_), m, 0, Origin::new_data});
    }
    // not a daemon: it returns once the arrivals are over
    s4u::Actor::create("aiops-detector", store_, [this]() { guarded([this]() { detector(); }); });
  }
  s4u::Actor::create("aiops-arrivals", store_, [this]() { guarded([this]() { arrivals(); }); });
}

// ------------------------------------------------------------------------------------ actors

void Simulator::arrivals()
{
  const aiops::ArrivalProfile& profile = *synth_.model().arrivals;
  double next_day                      = 86400;
  std::uniform_real_distribution<double> u(0, 1);
  bool any = not shares_.empty() && shares_.back() > 0;
  double t = 0;
  while (any) {
    double gap = profile.sample(t, arrivals_rng_) * e_.interarrival_factor;
    if (t + gap >= e_.duration_s)
      break;
    sim::sleep_until(t + gap);
    ++sum_.activities;
    t = s4u::Engine::get_clock();
    while (t >= next_day) {
      if (options_.progress)
        options_.progress(next_day, e_.duration_s, sum_.arrivals);
      next_day += 86400;
    }
    double x      = u(arrivals_rng_) * shares_.back();
    auto it       = std::upper_bound(shares_.begin(), shares_.end(), x);
    uint32_t spec = uint32_t(std::min<size_t>(size_t(it - shares_.begin()), shares_.size() - 1));
    ++sum_.arrivals;
    start_pipeline(spec, Origin::arrival, -1);
  }
  if (s4u::Engine::get_clock() < e_.duration_s)
    sim::sleep_until(e_.duration_s);
  arrivals_over_ = true;
  wake_detector();
  if (in_flight_ > 0)
    drained_->acquire();
}

bool Simulator::take(Pool& p, Ready& r)
{
  if (e_.strategy == "shortest") {
    if (p.shortest.empty())
      return false;
    r = p.shortest.top();
    p.shortest.pop();
  } else {
    if (p.fifo.empty())
      return false;
    r = p.fifo.front();
    p.fifo.pop_front();
  }
  return true;
}

void Simulator::worker(Worker& self, s4u::Host* host, int32_t slot)
{
  Pool& p = pools_[self.pool];
  for (;;) {
    Ready r;
    if (self.has_next) {
      r             = self.next;
      self.has_next = false;
    } else if (not take(p, r)) {
      // nothing queued: wait, suspended, until release() hands this slot a task
      p.idle.push_back(&self);
      s4u::this_actor::suspend();
      continue;
    }
    run_task(self, host, slot, r);
  }
}

double Simulator::read_time(s4u::Host* host, double bytes)
{
  auto it = routes_.find(host);
  if (it == routes_.end())
    it = routes_
             .emplace(host,
                      std::make_pair(sim::route_cost(store_, host, factors_), sim::route_cost(host, store_, factors_)))
             .first;
  double t = sim::isolated_transfer_time(it->second.first, bytes, factors_);
  if (disk_ != nullptr)
    t += bytes / disk_->get_read_bandwidth();
  return t;
}

double Simulator::write_time(s4u::Host* host, double bytes)
{
  read_time(host, 0); // (the routes, once)
  double t = sim::isolated_transfer_time(routes_.at(host).second, bytes, factors_);
  if (disk_ != nullptr)
    t += bytes / disk_->get_write_bandwidth();
  return t;
}

void Simulator::run_task(Worker& w, s4u::Host* host, int32_t slot, const Ready& r)
{
  uint32_t pool   = w.pool;
  Pool& p         = pools_[pool];
  Live& l         = lives_[r.slot];
  const CTask& ct = specs_[l.spec].tasks[r.task];
  TaskState t     = l.tasks[r.task];
  double start    = s4u::Engine::get_clock();
  bool contended  = e_.transfers == aiops::TransferMode::contended;
  double queue    = start - r.ready;
  {
    HourAcc& a = hour_now(pool);
    ++a.started;
    a.queued += queue;
    ++hours_[pool].running;
    hour_now(pools_.size()).bytes_read += t.read;
  }
  if (contended) {
    // the data from the store (through its disk, if it has one), the execution, the result back
    if (t.read > 0) {
      if (disk_ != nullptr) {
        disk_->read(sg_size_t(t.read));
        ++sum_.activities;
      }
      s4u::Comm::sendto(store_, host, uint64_t(t.read));
      ++sum_.activities;
    }
    if (t.seconds > 0) {
      s4u::this_actor::execute(t.seconds * host->get_speed());
      ++sum_.activities;
    }
    if (t.write > 0) {
      s4u::Comm::sendto(host, store_, uint64_t(t.write));
      ++sum_.activities;
      if (disk_ != nullptr) {
        disk_->write(sg_size_t(t.write));
        ++sum_.activities;
      }
    }
  } else {
    // PipeSim's granularity: the read and the write take their isolated times, one wait for both
    // (nothing else sees them), then the execution; the task spans the same time as read, compute,
    // write in order, only its compute sits at the end of that span
    double wait = (t.read > 0 ? read_time(host, t.read) : 0) + (t.write > 0 ? write_time(host, t.write) : 0);
    if (wait > 0) {
      sim::sleep_for(wait);
      ++sum_.activities;
    }
    if (t.seconds > 0) {
      s4u::this_actor::execute(t.seconds * host->get_speed());
      ++sum_.activities;
    }
  }
  double end = s4u::Engine::get_clock();
  hour_now(pool);
  --hours_[pool].running;
  hour_now(pools_.size()).bytes_written += t.write;
  l.wait += queue;
  l.compute += t.seconds;
  ++sum_.tasks;
  ++p.tasks;
  p.busy += end - start;
  p.queued += queue;
  p.bytes_read += t.read;
  p.bytes_written += t.write;
  if (db_)
    db_->add(
        aiops::TaskRow{l.id, r.task, ct.kind, int32_t(pool), slot, r.ready, start, end, t.seconds, t.read, t.write});
  finishing_ = &w; // this slot is free for what the task releases
  complete(r.slot, r.task);
  finishing_ = nullptr;
}

template <class F>
void Simulator::guarded(F body)
{
  // (SimGrid's ForcefulKillException, which ends killed actors, is no std::exception: it passes by,
  // with no rethrow here, which AddressSanitizer could not follow across SimGrid's contexts)
  try {
    body();
  } catch (const std::exception&) {
    // an exception escaping an actor would abort the process: end the run, report it after
    if (not failure_)
      failure_ = std::current_exception();
    s4u::Actor::kill_all();
  }
}

void Simulator::wake_detector()
{
  if (detector_sleeping_) {
    detector_sleeping_ = false;
    detector_wake_->release();
  }
}

void Simulator::detector()
{
  // sleeps until `until` (or for ever when infinite), or until woken
  auto sleep = [this](double until) {
    detector_sleeping_ = true;
    if (std::isfinite(until))
      detector_wake_->acquire_timeout(std::max(0.0, until - s4u::Engine::get_clock()));
    else
      detector_wake_->acquire();
    detector_sleeping_ = false;
  };
  for (;;) {
    double now = s4u::Engine::get_clock();
    if (arrivals_over_ || now >= e_.duration_s)
      return; // triggers act within the duration
    if (events_.empty()) {
      sleep(e_.duration_s);
      continue;
    }
    Event ev = events_.top();
    if (ev.time >= e_.duration_s) {
      // nothing to do before the end: sleep until it, or until a deployment brings an earlier event
      sleep(e_.duration_s);
      if (s4u::Engine::get_clock() >= e_.duration_s)
        return;
      continue;
    }
    if (ev.time > now) {
      sleep(ev.time);
      continue;
    }
    events_.pop();
    Deployed& d = deployed_[ev.model];
    if (ev.trigger == Origin::new_data) {
      for (const auto& t : e_.triggers)
        if (t.kind == "new_data")
          events_.push(
              {now + std::exponential_distribution<double>(1 / t.value)(drift_rng_), ev.model, 0, Origin::new_data});
    } else if (ev.version != d.version)
      continue; // a newer version replaced the one this event watched
    if (d.retraining)
      continue; // one retraining at a time: the version it makes is watched afresh
    if (db_)
      db_->add(aiops::SampleRow{now, int64_t(ev.model), d.version, int32_t(aiops::SampleEvent::triggered),
                                d.metric * (1 - d.drift.staleness(now - d.deployed)),
                                d.drift.staleness(now - d.deployed)});
    d.retraining = true;
    ++d.retrains;
    ++sum_.retrainings;
    start_pipeline(uint32_t(retrain_spec_), ev.trigger, ev.model);
  }
}

// ------------------------------------------------------------------------------------ pipelines

uint32_t Simulator::start_pipeline(uint32_t spec, Origin origin, int64_t model)
{
  uint32_t slot;
  if (free_.empty()) {
    slot = uint32_t(lives_.size());
    lives_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  const CPipeline& c = specs_[spec];
  Live& l            = lives_[slot];
  l                  = Live{};
  l.id               = next_id_++;
  l.spec             = spec;
  l.origin           = origin;
  l.model            = model;
  l.arrival          = s4u::Engine::get_clock();
  auto& rng          = content_rng_;
  l.asset            = synth_.asset(rng);
  l.framework        = uint32_t(synth_.framework(rng));
  l.model_bytes      = synth_.model_bytes(rng);
  l.metric           = synth_.metric(rng);
  double train       = synth_.train_seconds(l.framework, rng);
  if (c.parent >= 0 && latest_[size_t(c.parent)] >= 0) {
    l.parent = latest_[size_t(c.parent)];
    train *= synth_.model().models->transfer;
  }
  const auto& mm = *synth_.model().models;
  double size    = l.model_bytes;
  double test    = std::round(l.asset.bytes * mm.test_fraction);
  std::uniform_real_distribution<double> u(0, 1);
  l.tasks.resize(c.tasks.size());
  for (size_t i : c.order) {
    const CTask& ct = c.tasks[i];
    TaskState& t    = l.tasks[i];
    t.waiting       = ct.parents;
    t.runs          = ct.probability >= 1 || u(rng) < ct.probability;
    const auto& k   = ct.kind_name;
    t.seconds       = k == "preprocess" ? synth_.preprocess_seconds(l.asset.bytes, rng)
                      : k == "train"    ? train
                      : k == "compress" ? synth_.compress_seconds(train, rng)
                                        : synth_.kind_seconds(k, rng);
    t.read          = ct.reads == Reads::data ? l.asset.bytes : ct.reads == Reads::model ? size : size + test;
    switch (ct.writes) {
    case Writes::nothing:
      break;
    case Writes::data:
      t.write = l.asset.bytes; // PipeSim does not model what preprocessing does to the data's size
      break;
    case Writes::model:
      t.write = size;
      break;
    case Writes::compressed:
      if (t.runs) {
        size = std::max(1.0, std::round(size * mm.compress_size));
        l.metric *= mm.compress_metric;
      }
      t.write = size;
      break;
    }
  }
  l.left = uint32_t(c.tasks.size());
  ++in_flight_;
  ++sum_.pipelines;
  auto& ah = arrival_hours_;
  auto h   = size_t(l.arrival / kHour);
  if (ah.size() <= h)
    for (size_t k = ah.size(); k <= h; ++k)
      ah.push_back(aiops::ArrivalHourRow{int64_t(k), 0, 0, 0});
  if (origin == Origin::arrival)
    ++ah[h].arrivals;
  else
    ++ah[h].triggered;
  for (uint16_t i = 0; i < c.tasks.size(); ++i)
    if (c.tasks[i].parents == 0)
      release(slot, i);
  return slot;
}

void Simulator::release(uint32_t slot, uint16_t task)
{
  Live& l         = lives_[slot];
  const CTask& ct = specs_[l.spec].tasks[task];
  if (l.stopped || not l.tasks[task].runs) {
    complete(slot, task); // skipped: an optional step not taken, or after a gate that stopped it
    return;
  }
  if (ct.gate >= 0 && l.metric < ct.gate) {
    l.stopped = true;
    complete(slot, task);
    return;
  }
  Pool& p = pools_[ct.pool];
  Ready r{slot, task, s4u::Engine::get_clock(), l.tasks[task].seconds, seq_++};
  // a free slot takes it at once: the one finishing the task that released it (when nothing queues,
  // so that nothing waits longer), else the longest idle; otherwise it queues
  Worker* w = nullptr;
  if (finishing_ != nullptr && finishing_->pool == ct.pool && not finishing_->has_next && p.fifo.empty() &&
      p.shortest.empty())
    w = finishing_;
  else if (not p.idle.empty()) {
    w = p.idle.front();
    p.idle.pop_front();
  }
  if (w != nullptr) {
    w->next     = r;
    w->has_next = true;
    if (w != finishing_)
      w->actor->resume();
    return;
  }
  if (e_.strategy == "shortest")
    p.shortest.push(r);
  else
    p.fifo.push_back(r);
}

void Simulator::complete(uint32_t slot, uint16_t task)
{
  Live& l = lives_[slot];
  if (--l.left == 0) {
    pipeline_done(slot);
    return;
  }
  for (uint16_t c : specs_[l.spec].tasks[task].children)
    if (--l.tasks[c].waiting == 0)
      release(slot, c);
}

void Simulator::pipeline_done(uint32_t slot)
{
  Live& l    = lives_[slot];
  double now = s4u::Engine::get_clock();
  sum_.end_s = std::max(sum_.end_s, now);
  ++done_;
  wait_total_ += l.wait;
  sum_.max_wait_s = std::max(sum_.max_wait_s, l.wait);
  if (l.stopped)
    ++sum_.gated;
  else
    latest_[l.spec] = l.id;
  if (l.origin != Origin::arrival)
    sum_.retraining_compute_s += l.compute;
  int64_t version = -1;
  if (l.model >= 0) {
    auto m       = uint32_t(l.model);
    Deployed& d  = deployed_[m];
    d.retraining = false;
    if (not l.stopped) {
      deploy(m, now, l.id, l.metric);
      version = d.version;
    } else if (not arrivals_over_ && l.origin != Origin::new_data) {
      // stopped at a gate: the trigger still holds, retrain again
      events_.push({now, m, d.version, l.origin});
      wake_detector();
    }
  }
  if (db_) {
    aiops::PipelineRow r;
    r.id          = l.id;
    r.pipeline    = int32_t(l.spec);
    r.origin      = int32_t(l.origin);
    r.status      = int32_t(l.stopped ? aiops::Status::gated : aiops::Status::done);
    r.framework   = int32_t(l.framework);
    r.model       = l.model;
    r.version     = version;
    r.parent      = l.parent;
    r.arrival     = l.arrival;
    r.end         = now;
    r.wait        = l.wait;
    r.rows        = l.asset.rows;
    r.columns     = l.asset.columns;
    r.bytes       = l.asset.bytes;
    r.model_bytes = l.model_bytes;
    r.metric      = l.metric;
    db_->add(r);
  }
  l.tasks.clear();
  free_.push_back(slot);
  if (--in_flight_ == 0 && arrivals_over_)
    drained_->release();
}

std::vector<std::string> default_simgrid_args(const std::vector<std::string>& given)
{
  std::vector<std::string> out;
  for (const char* key : {"cpu/maxmin-selective-update", "network/maxmin-selective-update"}) {
    bool set = false;
    for (const auto& a : given)
      set = set || a.rfind(std::string("--cfg=") + key + ":", 0) == 0;
    if (not set)
      out.push_back(std::string("--cfg=") + key + ":yes");
  }
  return out;
}

namespace {

aiops::Synthesizer synthesizer(const aiops::ExperimentSpec& spec)
{
  aiops::Model model;
  for (const auto& file : spec.models)
    aiops::merge(model, aiops::read_model(file));
  try {
    return aiops::Synthesizer(std::move(model));
  } catch (const std::invalid_argument& bad) {
    throw InputError(spec.file.string(), "model", bad.what());
  }
}

} // namespace

Run::Run(const aiops::ExperimentSpec& spec, const platform::Platform* platform, const RunOptions& options)
    : impl_(std::make_unique<Simulator>(spec, synthesizer(spec), platform, options))
{
  impl_->setup();
}

Run::~Run() = default;

RunSummary Run::finish()
{
  return impl_->finish();
}

std::vector<std::string> Run::hosts() const
{
  return impl_->hosts();
}

RunSummary run_experiment(const aiops::ExperimentSpec& spec, const RunOptions& options)
{
  sim::SimulationOptions so;
  so.simgrid_args = options.simgrid_args;
  sim::Simulation simulation(so);
  for (const auto& a : default_simgrid_args(options.simgrid_args)) { // (set quietly: no "Configuration change")
    auto colon = a.rfind(':');
    simgrid::config::set_value<bool>(a.substr(6, colon - 6).c_str(), true);
  }
  auto platform = simulation.load_platform(spec.platform);
  Run run(spec, platform ? &*platform : nullptr, options);
  simulation.run();
  return run.finish();
}

} // namespace sgai::aiops_sim
