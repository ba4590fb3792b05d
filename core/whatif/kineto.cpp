#include "core/whatif/kineto.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace sgai::whatif {

namespace {

using json = nlohmann::json;

/** Microseconds as written ("1712195495519689.813", "1623142623460111", "1.5e3") -> nanoseconds,
 *  from the text so that no digit is lost. */
std::optional<int64_t> micros_text_to_ns(std::string_view s)
{
  bool negative = false;
  size_t i      = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    negative = s[i] == '-';
    ++i;
  }
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    if (whole > (std::numeric_limits<int64_t>::max() / 1000 - 9) / 10)
      return std::nullopt;
    whole = whole * 10 + (s[i] - '0');
  }
  int64_t frac  = 0;
  bool round_up = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int n = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++n) {
      if (n < 3)
        frac = frac * 10 + (s[i] - '0');
      else if (n == 3)
        round_up = s[i] >= '5';
    }
    for (int k = n < 3 ? n : 3; k < 3; ++k)
      frac *= 10;
  }
  if (round_up)
    frac += 1;
  if (digits == 0 || i != s.size())
    return std::nullopt; // exponent forms and anything else: the caller falls back to the double
  int64_t ns = whole * 1000 + frac;
  return negative ? -ns : ns;
}

std::optional<EventKind> kind_of_category(std::string_view cat)
{
  if (cat == "cpu_op" || cat == "Operator")
    return EventKind::cpu_op;
  if (cat == "user_annotation" || cat == "User annotation" || cat == "user annotation")
    return EventKind::user_annotation;
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver" || cat == "Driver")
    return EventKind::runtime;
  if (cat == "kernel" || cat == "Kernel")
    return EventKind::kernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy")
    return EventKind::memcpy;
  if (cat == "gpu_memset" || cat == "Memset")
    return EventKind::memset;
  if (cat == "gpu_user_annotation" || cat == "GPU user annotation")
    return EventKind::gpu_annotation;
  if (cat == "cuda_sync")
    return EventKind::sync;
  return std::nullopt;
}

class Reader : public nlohmann::json_sax<json> {
public:
  Reader(KinetoTrace& trace, const std::filesystem::path& file)
      : t_(trace)
      , file_(file.string())
  {
  }

  bool saw_events() const { return saw_events_; }

  bool null() override { return scalar(Value{}); }
  bool boolean(bool v) override { return scalar(Value{v ? 1 : 0, v ? "true" : "false", true}); }
  bool number_integer(number_integer_t v) override { return scalar(Value{v, std::to_string(v), true}); }
  bool number_unsigned(number_unsigned_t v) override
  {
    int64_t x = v > uint64_t(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max() : int64_t(v);
    return scalar(Value{x, std::to_string(v), true});
  }
  bool number_float(number_float_t v, const string_t& s) override
  {
    Value val;
    val.is_number = true;
    val.text      = s;
    val.real      = v;
    val.is_real   = true;
    val.integer   = std::isfinite(v) && std::fabs(v) < 9e18 ? int64_t(std::llround(v)) : 0;
    return scalar(std::move(val));
  }
  bool string(string_t& s) override
  {
    Value val;
    val.text      = std::move(s);
    val.is_string = true;
    return scalar(std::move(val));
  }
  bool binary(binary_t&) override { return true; }

  bool start_object(std::size_t) override
  {
    Ctx c = Ctx::other;
    if (stack_.empty())
      c = Ctx::root;
    else if (stack_.back() == Ctx::root && key_ == "distributedInfo")
      c = Ctx::dist;
    else if (stack_.back() == Ctx::events) {
      c   = Ctx::event;
      ev_ = Pending{};
    } else if (stack_.back() == Ctx::event && key_ == "args")
      c = Ctx::args;
    else if (stack_.back() == Ctx::devices) {
      c    = Ctx::device;
      dev_ = DeviceProperties{};
    }
    stack_.push_back(c);
    key_.clear();
    return true;
  }
  bool end_object() override
  {
    Ctx c = stack_.back();
    stack_.pop_back();
    if (c == Ctx::event)
      finish_event();
    else if (c == Ctx::device)
      t_.devices.push_back(std::move(dev_));
    key_.clear();
    return true;
  }
  bool start_array(std::size_t) override
  {
    Ctx c = Ctx::other;
    if (not stack_.empty() && stack_.back() == Ctx::root) {
      if (key_ == "traceEvents") {
        c           = Ctx::events;
        saw_events_ = true;
      } else if (key_ == "deviceProperties")
        c = Ctx::devices;
    }
    stack_.push_back(c);
    return true;
  }
  bool end_array() override
  {
    stack_.pop_back();
    key_.clear();
    return true;
  }
  bool key(string_t& k) override
  {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override
  {
    std::string what = ex.what();
    auto colon       = what.rfind(": ");
    throw InputError(file_, "byte " + std::to_string(position),
                     "not JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
  }

private:
  enum class Ctx : uint8_t { other, root, events, event, args, devices, device, dist };

  struct Value {
    int64_t integer = 0;
    std::string text;
    bool is_number = false;
    bool is_string = false;
    bool is_real   = false;
    double real    = 0;
  };

  struct Pending {
    std::string ph, cat, name, pid, tid;
    std::optional<Value> ts, dur;
    Event e;
    CollectiveArgs coll;
    bool has_coll = false;
  };

  [[noreturn]] void fail_event(const std::string& message) const
  {
    throw InputError(file_, "/traceEvents/" + std::to_string(current_), message);
  }

  bool scalar(Value v)
  {
    if (stack_.empty())
      return true;
    switch (stack_.back()) {
    case Ctx::event:
      event_field(std::move(v));
      break;
    case Ctx::args:
      arg_field(std::move(v));
      break;
    case Ctx::device:
      device_field(v);
      break;
    case Ctx::dist:
      if (key_ == "rank" && v.is_number)
        t_.rank = v.integer;
      else if (key_ == "world_size" && v.is_number)
        t_.world_size = v.integer;
      break;
    default:
      break;
    }
    return true;
  }

  void event_field(Value v)
  {
    if (key_ == "ph")
      ev_.ph = std::move(v.text);
    else if (key_ == "cat")
      ev_.cat = std::move(v.text);
    else if (key_ == "name")
      ev_.name = std::move(v.text);
    else if (key_ == "pid")
      ev_.pid = std::move(v.text);
    else if (key_ == "tid")
      ev_.tid = std::move(v.text);
    else if (key_ == "ts")
      ev_.ts = std::move(v);
    else if (key_ == "dur")
      ev_.dur = std::move(v);
  }

  static int64_t as_int(const Value& v, int64_t fallback = -1)
  {
    if (v.is_number)
      return v.integer;
    if (v.is_string) {
      try {
        size_t used = 0;
        long long x = std::stoll(v.text, &used);
        if (used == v.text.size())
          return x;
      } catch (const std::exception&) {
      }
    }
    return fallback;
  }

  void arg_field(Value v)
  {
    Event& e = ev_.e;
    if (key_ == "correlation")
      e.correlation = as_int(v);
    else if (key_ == "External id" || key_ == "external id")
      e.external_id = as_int(v);
    else if (key_ == "stream")
      e.stream = int32_t(as_int(v));
    else if (key_ == "device")
      e.device = int32_t(as_int(v));
    else if (key_ == "bytes")
      e.bytes = uint64_t(std::max<int64_t>(0, as_int(v, 0)));
    else if (key_ == "wait_on_stream")
      e.wait_stream = int32_t(as_int(v));
    else if (key_ == "wait_on_cuda_event_record_corr_id")
      e.wait_record_corr = as_int(v);
    else if (key_ == "critical")
      e.critical = v.integer != 0 || v.text == "true";
    else if (key_ == "Collective name") {
      ev_.coll.name = std::move(v.text);
      ev_.has_coll  = true;
    } else if (key_ == "In msg nelems" || key_ == "In msg size")
      ev_.coll.in_elems = uint64_t(std::max<int64_t>(0, as_int(v, 0)));
    else if (key_ == "Out msg nelems" || key_ == "Out msg size")
      ev_.coll.out_elems = uint64_t(std::max<int64_t>(0, as_int(v, 0)));
    else if (key_ == "dtype")
      ev_.coll.dtype = std::move(v.text);
    else if (key_ == "Group size")
      ev_.coll.group_size = as_int(v, 0);
    else if (key_ == "Process Group Name")
      ev_.coll.group = std::move(v.text);
    else if (key_ == "Process Group Ranks")
      ev_.coll.ranks = std::move(v.text);
  }

  void device_field(const Value& v)
  {
    if (key_ == "id")
      dev_.id = int(as_int(v));
    else if (key_ == "name")
      dev_.name = v.text;
    else if (key_ == "totalGlobalMem")
      dev_.memory_bytes = v.is_real ? v.real : double(as_int(v, 0));
    else if (key_ == "numSms")
      dev_.multiprocessors = int(as_int(v, 0));
    else if (key_ == "computeMajor")
      dev_.compute_major = int(as_int(v, 0));
    else if (key_ == "computeMinor")
      dev_.compute_minor = int(as_int(v, 0));
  }

  int64_t to_ns(const Value& v, const char* field) const
  {
    if (not v.is_number)
      fail_event(std::string("'") + field + "' is not a number: " + quote(v.text));
    if (auto ns = micros_text_to_ns(v.text))
      return *ns;
    double us = v.is_real ? v.real : double(v.integer);
    if (not std::isfinite(us) || std::fabs(us) > 9e15)
      fail_event(std::string("'") + field + "' is out of range: " + v.text);
    return int64_t(std::llround(us * 1000.0));
  }

  uint32_t intern(std::string&& s)
  {
    auto it = name_index_.find(s);
    if (it != name_index_.end())
      return it->second;
    auto id = uint32_t(t_.names.size());
    t_.names.push_back(s);
    name_index_.emplace(std::move(s), id);
    return id;
  }

  void finish_event()
  {
    current_ = index_++;
    if (ev_.ph != "X") {
      ++t_.other_events;
      return;
    }
    auto kind = kind_of_category(ev_.cat);
    if (not kind) {
      ++t_.other_events;
      return;
    }
    Event e = ev_.e;
    e.kind  = *kind;
    if (not ev_.ts)
      fail_event("a complete event ('X') without 'ts'");
    e.ts_ns  = to_ns(*ev_.ts, "ts");
    e.dur_ns = ev_.dur ? to_ns(*ev_.dur, "dur") : 0;
    if (e.dur_ns < 0)
      fail_event("negative 'dur': " + ev_.dur->text);
    e.name           = intern(std::move(ev_.name));
    std::string tkey = ev_.pid + '\x1f' + ev_.tid;
    auto it          = thread_index_.find(tkey);
    if (it == thread_index_.end()) {
      it = thread_index_.emplace(std::move(tkey), uint32_t(t_.threads.size())).first;
      t_.threads.push_back(TraceThread{ev_.pid, ev_.tid});
    }
    e.thread = it->second;
    if (ev_.has_coll) {
      e.collective = int32_t(t_.collectives.size());
      t_.collectives.push_back(std::move(ev_.coll));
    }
    // Old schema: the stream of a GPU event from its thread name when args lack it.
    if (e.stream < 0 && (e.kind == EventKind::kernel || e.kind == EventKind::memcpy || e.kind == EventKind::memset)) {
      const std::string& tid = t_.threads[e.thread].tid;
      std::string_view digits(tid);
      if (digits.rfind("stream ", 0) == 0)
        digits.remove_prefix(7);
      int32_t s = 0;
      bool ok   = not digits.empty();
      for (char ch : digits) {
        if (ch < '0' || ch > '9') {
          ok = false;
          break;
        }
        s = s * 10 + (ch - '0');
      }
      if (ok)
        e.stream = s;
    }
    t_.events.push_back(e);
  }

  KinetoTrace& t_;
  std::string file_;
  std::vector<Ctx> stack_;
  std::string key_;
  Pending ev_;
  DeviceProperties dev_;
  size_t index_    = 0; ///< events seen in traceEvents
  size_t current_  = 0; ///< the one being finished
  bool saw_events_ = false;
  std::unordered_map<std::string, uint32_t> name_index_;
  std::unordered_map<std::string, uint32_t> thread_index_;
};

} // namespace

KinetoTrace parse_kineto(const std::string& text, const std::filesystem::path& file)
{
  KinetoTrace t;
  t.file = file;
  Reader reader(t, file);
  bool ok = json::sax_parse(text, &reader, nlohmann::detail::input_format_t::json, true);
  if (not ok)
    throw InputError(file.string(), "", "not JSON");
  if (not reader.saw_events())
    throw InputError(file.string(), "", "not a Chrome trace: the top level has no 'traceEvents' array");
  return t;
}

KinetoTrace read_kineto(const std::filesystem::path& file)
{
  std::string text = read_maybe_gzip(file, "a PyTorch profiler trace (JSON)");
  return parse_kineto(text, file);
}

} // namespace sgai::whatif
