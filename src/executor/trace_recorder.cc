// Copyright ferry authors.
#include "executor/trace_recorder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <utility>

namespace ferry::detail {

namespace {

// A JSON string, with '<' escaped too, so that the trace can sit inside the
// page's <script> element whatever a task's name says.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '<': out += "\\u003c"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string micros(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", std::chrono::duration<double, std::micro>(d).count());
  return buf;
}

// The page: the trace inside, drawn as an SVG of one row per worker lane,
// time across; failed tasks red, tasks that threw orange. No network, no
// script from elsewhere.
constexpr const char* page_head = R"page(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>ferry timeline</title>
<style>
body { font: 13px sans-serif; margin: 16px; color: #222; }
#summary { margin-bottom: 8px; }
rect.span { fill: #4a8f6a; stroke: #fff; stroke-width: 1; } rect.span.threw { fill: #e69a28; }
rect.span.failed { fill: #d33; }
.key { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
text.row-label { font-size: 12px; } text.tick { font-size: 11px; fill: #666; }
line.tick { stroke: #ddd; }
</style></head><body>
<div id="summary"></div>
<div id="legend"><span class="key" style="background:#4a8f6a"></span>ran<span class="key"
style="background:#e69a28"></span>threw<span class="key" style="background:#d33"></span>its worker died or it timed out</div>
<div id="timeline"></div>
<script id="trace" type="application/json">)page";

constexpr const char* page_tail = R"page(</script>
<script>
(function () {
  const trace = JSON.parse(document.getElementById("trace").textContent);
  const rows = new Map();
  for (const e of trace.traceEvents)
    if (e.ph === "M" && e.name === "thread_name") rows.set(e.tid, e.args.name);
  const spans = trace.traceEvents.filter(e => e.ph === "X");
  const tids = [...rows.keys()].sort((a, b) => a - b);
  let end = 0;
  for (const s of spans) end = Math.max(end, s.ts + s.dur);
  if (end <= 0) end = 1;
  const left = 150, width = 900, rowHeight = 22, top = 24;  // px
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", left + width + 20);
  svg.setAttribute("height", top + rowHeight * tids.length + 10);
  const add = (name, attrs, text) => {
    const el = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  const x = t => left + (t / end) * width;
  // Ticks at 1, 2 or 5 times a power of ten, at most eight of them.
  const power = Math.pow(10, Math.floor(Math.log10(end / 8)));
  const step = [1, 2, 5, 10].map(m => m * power).find(s => end / s <= 8);
  for (let t = 0; t <= end; t += step) {
    add("line", { class: "tick", x1: x(t), x2: x(t), y1: top - 4, y2: top + rowHeight * tids.length });
    const ms = t / 1000;
    add("text", { class: "tick", x: x(t) + 2, y: top - 8 }, (ms >= 10 ? ms.toFixed(0) : ms.toPrecision(2)) + " ms");
  }
  tids.forEach((tid, i) => add("text", { class: "row-label", x: 4, y: top + i * rowHeight + 15 }, rows.get(tid)));
  let failed = 0, threw = 0;
  for (const s of spans) {
    const i = tids.indexOf(s.tid);
    const status = s.args.status;
    if (status === "failed") ++failed;
    if (status === "threw") ++threw;
    const r = add("rect", {
      class: "span" + (status === "ok" ? "" : " " + status),
      x: x(s.ts), y: top + i * rowHeight + 3,
      width: Math.max(3, x(s.ts + s.dur) - x(s.ts)), height: rowHeight - 6,
    });
    const t = document.createElementNS(ns, "title");
    t.textContent = s.name + ": " + (s.dur / 1000).toFixed(3) + " ms, " + s.args.items + " input(s)" +
                    (s.args.threw ? ", " + s.args.threw + " of them threw" : "") +
                    (s.args.error ? ", " + s.args.error : "");
    r.appendChild(t);
  }
  document.getElementById("timeline").appendChild(svg);
  document.getElementById("summary").textContent =
      spans.length + " tasks on " + tids.length + " rows, " + failed + " failed, " + threw + " threw, " +
      (end / 1000).toFixed(1) + " ms";
})();
</script>
</body></html>
)page";

}  // namespace

std::shared_ptr<pool_observer> trace_recorder::for_pool(const pool_options& options,
                                                        std::shared_ptr<trace_recorder>* recorder) {
  std::filesystem::path path = options.trace;
  if (path.empty()) {
    const char* env = std::getenv("FERRY_TRACE");
    if (env != nullptr && *env != '\0') path = env;
  }
  if (path.empty()) return options.observer;
  auto r = std::make_shared<trace_recorder>(std::move(path), options.observer);
  if (recorder != nullptr) *recorder = r;
  return r;
}

trace_recorder::trace_recorder(std::filesystem::path json, std::shared_ptr<pool_observer> next)
    : json_path_(std::move(json)), next_(std::move(next)) {}

void trace_recorder::on_task(const task_event& e) {
  if (next_) next_->on_task(e);
  using kind = task_event::kind;
  if (e.what != kind::started && e.what != kind::finished && e.what != kind::failed) return;
  mutex_lock lock(mu_);
  if (e.what == kind::started) {
    open_[e.task] = {e.host.empty() ? "worker " + std::to_string(e.worker) : "host " + std::string(e.host), e.at};
    return;
  }
  const auto it = open_.find(e.task);
  if (it == open_.end()) return;  // failed before it started: nothing ran
  span s;
  s.row = std::move(it->second.row);
  s.start = it->second.start;
  s.end = e.at;
  open_.erase(it);
  s.name = e.name.empty() ? "task " + std::to_string(e.task) : std::string(e.name);
  s.items = e.items;
  s.items_threw = e.items_threw;
  s.ended = e.what == kind::failed ? span::how::failed : e.threw ? span::how::threw : span::how::ok;
  s.error = std::string(e.error);
  spans_.push_back(std::move(s));
}

void trace_recorder::on_worker(const worker_event& e) {
  if (next_) next_->on_worker(e);
}

std::string trace_recorder::json() const {
  std::vector<span> spans;
  {
    mutex_lock lock(mu_);
    spans = spans_;
  }
  // Rows as named, each split into lanes where spans overlap (several
  // workers of one host), so that no two bars of a row cross.
  std::map<std::string, std::vector<span*>> by_row;
  for (span& s : spans) by_row[s.row].push_back(&s);
  std::string meta, events;
  int tid = 0;
  for (auto& [row, list] : by_row) {
    std::sort(list.begin(), list.end(), [](const span* a, const span* b) { return a->start < b->start; });
    std::vector<clock::time_point> lane_end;
    std::vector<int> lane_tid;
    for (const span* s : list) {
      std::size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > s->start) ++lane;
      if (lane == lane_end.size()) {
        lane_end.push_back(s->end);
        lane_tid.push_back(++tid);
      }
      lane_end[lane] = s->end;
      const char* status = s->ended == span::how::failed ? "failed" : s->ended == span::how::threw ? "threw" : "ok";
      events += ",\n{\"name\":" + quoted(s->name) + ",\"cat\":\"task\",\"ph\":\"X\",\"pid\":1,\"tid\":" +
                std::to_string(lane_tid[lane]) + ",\"ts\":" + micros(s->start - origin_) +
                ",\"dur\":" + micros(s->end - s->start) + ",\"args\":{\"items\":" + std::to_string(s->items) +
                ",\"threw\":" + std::to_string(s->items_threw) + ",\"status\":\"" + status +
                "\",\"error\":" + quoted(s->error) + "}" +
                (s->ended == span::how::failed ? ",\"cname\":\"terrible\"" :
                 s->ended == span::how::threw ? ",\"cname\":\"bad\"" : "") + "}";
    }
    for (std::size_t lane = 0; lane < lane_tid.size(); ++lane) {
      const std::string name = lane_tid.size() > 1 ? row + " #" + std::to_string(lane + 1) : row;
      meta += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(lane_tid[lane]) +
              ",\"args\":{\"name\":" + quoted(name) + "}}";
    }
  }
  return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
         "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"ferry pool\"}}" +
         meta + events + "\n]}\n";
}

std::string trace_recorder::html_page(const std::string& trace_json) {
  return std::string(page_head) + trace_json + page_tail;
}

void trace_recorder::write() const {
  const std::string trace = json();
  std::filesystem::path html = json_path_;
  html.replace_extension(".html");
  for (const auto& [path, text] : {std::pair{json_path_, trace}, std::pair{html, html_page(trace)}}) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
      std::cerr << "ferry: could not write the pool's timeline to '" << path.string() << "'\n";
  }
}

}  // namespace ferry::detail
