class Status {
 public:
  Status() noexcept : state_(nullptr) {}
  ~Status() { delete[] state_; }
  Status(Status&& rhs) noexcept : state_(rhs.state_) { rhs.state_ = nullptr; }
  bool ok() const { return state_ == nullptr; }
 private:
  const char* state_;
};
