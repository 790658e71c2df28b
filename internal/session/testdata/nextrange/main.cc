// DB::Get's first line (Status s, status.h) holds, at g++ -O2, a row of
// std_mutex.h that is no statement where MutexLock's inlined call begins
// its first range (&mutex_ computed early); GDB's range for the line goes
// over it (leveldb's DBImpl::Get, reduced).
#include "lock.h"
#include "status.h"
struct Table { int Ref(); int v; };
std::mutex ref_mu;
// Locks first: the line table names the mutex's headers before status.h.
__attribute__((noinline)) int Table::Ref() { MutexLock l(&ref_mu); return ++v; }
struct DB {
  Table* mem_;
  Table* imm_;
  long seq_;
  long pad_[22];
  std::mutex mutex_;
  Status Get(const long* snap, int key, int* value);
};
__attribute__((noinline)) Status DB::Get(const long* snap, int key, int* value) {
  Status s;
  MutexLock l(&mutex_);
  long snapshot;
  if (snap != nullptr) {
    snapshot = *snap;
  } else {
    snapshot = seq_;
  }
  Table* mem = mem_;
  Table* imm = imm_;
  mem->Ref();
  if (imm != nullptr) imm->Ref();
  *value = key + (int)snapshot + mem->v;
  return s;
}
int main() {
  Table t{0};
  DB db;
  db.mem_ = &t;
  db.imm_ = nullptr;
  db.seq_ = 7;
  int v = 0;
  Status s = db.Get(nullptr, 3, &v);
  return s.ok() ? v & 1 : 2;
}
