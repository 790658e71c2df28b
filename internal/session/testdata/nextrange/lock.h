#include <mutex>
class MutexLock {
 public:
  explicit MutexLock(std::mutex* mu) : mu_(mu) { this->mu_->lock(); }
  ~MutexLock() { this->mu_->unlock(); }
 private:
  std::mutex* const mu_;
};
