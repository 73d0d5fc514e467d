#include "engine/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/thread_control.h"
#include "kernels/kernels.h"

namespace aclnn_upsample {
namespace {

// One ParallelFor call. Lives on the caller's stack; the caller leaves only after every helper
// that joined has left (helpers_active back to zero), so helpers never touch a dead job.
struct Job {
  const TaskFunction* run_task = nullptr;
  int64_t num_tasks = 0;
  int max_helpers = 0;
  std::atomic<int64_t> next_task{0};
  // Changed under the pool mutex; helpers_active is also read without it, by the watching caller.
  int helpers_joined = 0;
  std::atomic<int> helpers_active{0};

  // Claims runs of consecutive tasks, each a share of what is left (guided scheduling): early
  // runs are long, so each core streams through a contiguous stretch of memory (tasks are laid
  // out in memory order) where one task at a time would interleave the cores' streams at task
  // granularity; late runs are single tasks, so the threads still finish together.
  void RunTasks(int slot) {
    const int64_t participants = max_helpers + 1;
    int64_t begin = next_task.load(std::memory_order_relaxed);
    while (begin < num_tasks) {
      const int64_t run = std::max<int64_t>(1, (num_tasks - begin) / (2 * participants));
      if (!next_task.compare_exchange_weak(begin, begin + run, std::memory_order_relaxed)) {
        continue;  // begin now holds the current value
      }
      for (int64_t task = begin; task < begin + run; ++task) (*run_task)(task, slot);
      begin = next_task.load(std::memory_order_relaxed);
    }
    // Once per participant, not per task: each flush waits for the streamed lines still in
    // flight. Flushed after every task, a 4096-plane forward (case 16, a plane a task) had 7 % of
    // its samples at the next task's start, and runs in 0.90-1.00 of the time (median 0.93,
    // AVX2) with one flush per participant.
    kernels::FlushStreamedStores();
  }
};

// How long an idle worker watches for the next call, and a caller for its helpers, before each
// blocks on a condition variable. A futex wake-up on these VMs takes tens of microseconds (the
// woken vCPU may have halted), which is most of a 0.1 ms call: case 46 (1024 planes of 7x7)
// spent a fifth of its samples in the kernel's wake and switch paths. Watching 50 us first ran
// it in 0.56 of the time, and sub-millisecond cases (4, 24, 38, 41) in 0.84-0.90 (medians of 6-8
// runs, AVX2, 2 threads). Back-to-back calls find their worker awake; a worker idle for longer
// sleeps as before, so a process that calls rarely loses at most 50 us of one core per call.
constexpr std::chrono::microseconds kWorkerWatch{50};
constexpr std::chrono::microseconds kCallerWatch{50};

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `done` until it holds (true) or `budget` has passed (false). Between short bursts of
// polls the thread yields, so a watcher gives its core to any other runnable thread (an
// application's, or PyTorch's) instead of taking the core from it.
template <typename Done>
bool WatchFor(Done done, std::chrono::microseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int poll = 0; poll < 16; ++poll) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() > deadline) return done();
    std::this_thread::yield();
  }
}

class Pool {
 public:
  static Pool& Get() {
    static Pool* pool = new Pool;  // workers run until process exit; never joined at teardown
    return *pool;
  }

  void Run(Job* job) {
    bool wake;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      EnsureWorkers(job->max_helpers);
      queue_.push_back(job);
      queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
      wake = sleeping_ > 0;
    }
    if (wake) work_available_.notify_all();
    job->RunTasks(/*slot=*/0);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // No more helpers may join once the caller has run out of tasks.
      for (auto it = queue_.begin(); it != queue_.end(); ++it) {
        if (*it == job) {
          queue_.erase(it);
          break;
        }
      }
      queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
    }
    // Acquire pairs with each helper's release after its last task and flush: the results are
    // visible once the count reads zero, with or without the lock.
    auto helpers_left = [job] { return job->helpers_active.load(std::memory_order_acquire) == 0; };
    if (WatchFor(helpers_left, kCallerWatch)) return;
    std::unique_lock<std::mutex> lock(mutex_);
    helpers_done_.wait(lock, helpers_left);
  }

 private:
  void EnsureWorkers(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) {
      workers_.emplace_back([this] { WorkerLoop(); });
      workers_.back().detach();
    }
  }

  void WorkerLoop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (queue_.empty()) {
        lock.unlock();
        // A hint only: the queue itself is read under the lock below.
        WatchFor([this] { return queued_.load(std::memory_order_relaxed) != 0; }, kWorkerWatch);
        lock.lock();
        ++sleeping_;
        work_available_.wait(lock, [this] { return !queue_.empty(); });
        --sleeping_;
      }
      Job* job = queue_.front();
      const int slot = ++job->helpers_joined;
      job->helpers_active.fetch_add(1, std::memory_order_relaxed);
      if (job->helpers_joined >= job->max_helpers) queue_.pop_front();
      queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
      lock.unlock();
      job->RunTasks(slot);
      lock.lock();
      // Under the lock, so that a caller about to block cannot miss the notification; the
      // caller may return as soon as it reads zero, so nothing of the job is touched after it.
      if (job->helpers_active.fetch_sub(1, std::memory_order_release) == 1) {
        helpers_done_.notify_all();
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::condition_variable helpers_done_;
  std::deque<Job*> queue_;
  std::atomic<int> queued_{0};  // queue_.size(), for watching workers that hold no lock
  int sleeping_ = 0;            // workers blocked on work_available_; only those need a notify
  std::vector<std::thread> workers_;
};

}  // namespace

void ParallelFor(int64_t num_tasks, int num_threads, const TaskFunction& run_task) {
  if (num_tasks <= 0) return;
  if (num_threads <= 1 || num_tasks == 1) {
    for (int64_t task = 0; task < num_tasks; ++task) run_task(task, 0);
    kernels::FlushStreamedStores();
    return;
  }
  Job job;
  job.run_task = &run_task;
  job.num_tasks = num_tasks;
  job.max_helpers = static_cast<int>(std::min<int64_t>(num_threads, num_tasks)) - 1;
  ExternalTeam team;
  if (GetExternalTeam(&team)) {
    // Each team member claims tasks as a pool worker would; the team's end publishes the writes.
    team.run(
        team.context, job.max_helpers + 1,
        [](void* arg, int index) { static_cast<Job*>(arg)->RunTasks(index); }, &job);
    return;
  }
  Pool::Get().Run(&job);
}

}  // namespace aclnn_upsample
