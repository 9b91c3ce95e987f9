// Starting a bench worker: this binary, re-executed with --threads and the
// worker's plan, and its JSON-line records read back from its stdout.
#include "bench.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace trackgen::app::bench {
namespace {

std::string self_exe() {
  std::vector<char> buf(4096);
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) throw std::runtime_error("bench: cannot resolve /proc/self/exe: " + std::string(std::strerror(errno)));
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

}  // namespace

std::vector<json> run_worker_process(int threads, const json& plan, std::set<std::string>& notes) {
  std::vector<std::string> args{self_exe()};
  if (threads > 0) {
    args.push_back("--threads");
    args.push_back(std::to_string(threads));
  }
  args.push_back("bench");
  args.push_back("--worker-plan");
  args.push_back(plan.dump());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("bench: pipe() failed: " + std::string(std::strerror(errno)));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc != 0) {
    close(fd[0]);
    throw std::runtime_error("bench: cannot start worker " + args[0] + ": " + std::strerror(rc));
  }
  std::vector<json> records;
  FILE* in = fdopen(fd[0], "r");
  char* line = nullptr;
  std::size_t cap = 0;
  ssize_t len = 0;
  while ((len = getline(&line, &cap, in)) > 0) {
    std::string s(line, static_cast<std::size_t>(len));
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty() && s.front() == '{') {
      json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("record")) {
        records.push_back(std::move(j));
        continue;
      }
    }
    if (!s.empty() && notes.insert(s).second) std::cerr << "[worker] " << s << "\n";
  }
  std::free(line);
  std::fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("bench: worker (threads " + std::to_string(threads) + ") failed with status " +
                             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status)));
  }
  return records;
}

}  // namespace trackgen::app::bench
