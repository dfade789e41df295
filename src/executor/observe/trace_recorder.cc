// Copyright ferry authors.
#include "executor/observe/trace_recorder.h"

#include "executor/observe/timeline_page.h"  // generated from timeline_page.html

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <system_error>
#include <utility>

#include <unistd.h>

#include <executor/errors.h>

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

// The page (src/executor/observe/timeline_page.html, compiled in as
// timeline_page_html): the trace goes where it says /*ferry:trace*/.
constexpr std::string_view trace_marker = "/*ferry:trace*/";

// Makes the directory `file` goes in, as `mkdir -p` would: "" when it is
// there and writable, else why not.
std::string make_directory_for(const std::filesystem::path& file) {
  const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && ::access(dir.c_str(), W_OK | X_OK) != 0) ec.assign(errno, std::generic_category());
  if (!ec) return "";
  return "the timeline '" + file.string() + "' cannot be written: its directory '" + dir.string() +
         "' cannot be made or written: " + ec.message();
}

}  // namespace

std::shared_ptr<pool_observer> trace_recorder::for_pool(const pool_options& options,
                                                        std::shared_ptr<trace_recorder>* recorder) {
  std::filesystem::path path = options.trace;
  const bool asked_by_option = !path.empty();
  if (path.empty()) {
    const char* env = std::getenv("FERRY_TRACE");
    if (env != nullptr && *env != '\0') path = env;
  }
  if (path.empty()) return options.observer;
  // A relative path names a place in the directory the program is in now:
  // written when the pool ends, it followed a chdir() made meanwhile.
  std::error_code ec;
  if (std::filesystem::path full = std::filesystem::absolute(path, ec); !ec) path = std::move(full);
  // Known now, not when the pool ends: a long run must not lose its
  // timeline to a directory that was never there.
  if (const std::string why = make_directory_for(path); !why.empty()) {
    if (asked_by_option) throw error("ferry: pool_options::trace: " + why);
    // $FERRY_TRACE reaches programs that never asked for a timeline: it
    // must not stop one from making its pool.
    std::cerr << "ferry: $FERRY_TRACE: " << why << "; this pool records no timeline\n";
    return options.observer;
  }
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
  const std::string_view page = timeline_page_html;
  const std::size_t at = page.find(trace_marker);
  return std::string(page.substr(0, at)) + trace_json + std::string(page.substr(at + trace_marker.size()));
}

void trace_recorder::write() const {
  const std::string trace = json();
  std::filesystem::path html = json_path_;
  html.replace_extension(".html");
  // One line for both files: a missing directory fails both, for one reason.
  std::string failed;
  int reason = 0;
  for (const auto& [path, text] : {std::pair{json_path_, trace}, std::pair{html, html_page(trace)}}) {
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (out.flush()) continue;
    if (reason == 0) reason = errno;
    failed += (failed.empty() ? "'" : " and '") + path.string() + "'";
  }
  if (!failed.empty())
    std::cerr << "ferry: could not write the pool's timeline to " << failed
              << (reason != 0 ? std::string(": ") + std::strerror(reason) : std::string()) << "\n";
}

}  // namespace ferry::detail
