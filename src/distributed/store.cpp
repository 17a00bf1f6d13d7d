// Store base helpers and PrefixStore (ctorch/distributed_store.h).
#include "ctorch/distributed_store.h"

#include "core/error_rethrow.h"

namespace ctorch::distributed {

namespace {
// Errors rethrown from other threads keep these types (core/error_rethrow.h); bases first.
const bool g_error_types_registered = [] {
  ::ctorch::detail::register_error_type<DistError>("DistError");
  ::ctorch::detail::register_error_type<DistBackendError>("DistBackendError");
  ::ctorch::detail::register_error_type<DistStoreError>("DistStoreError");
  ::ctorch::detail::register_error_type<DistNetworkError>("DistNetworkError");
  return true;
}();
}  // namespace

Store::~Store() = default;

void Store::set(const std::string& key, const std::string& value) {
  set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

std::string Store::get_string(const std::string& key) {
  const std::vector<uint8_t> v = get(key);
  return std::string(v.begin(), v.end());
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  CTORCH_CHECK_VALUE(store_ != nullptr, "PrefixStore: the underlying store is null");
}

std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (const std::string& k : ks) out.push_back(key(k));
  return out;
}

void PrefixStore::set(const std::string& k, const std::vector<uint8_t>& value) { store_->set(key(k), value); }
std::vector<uint8_t> PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
int64_t PrefixStore::add(const std::string& k, int64_t amount) { return store_->add(key(k), amount); }
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
bool PrefixStore::delete_key(const std::string& k) { return store_->delete_key(key(k)); }
void PrefixStore::wait(const std::vector<std::string>& ks, std::chrono::milliseconds timeout) {
  store_->wait(keys(ks), timeout);
}

}  // namespace ctorch::distributed
