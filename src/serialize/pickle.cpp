// The pickle subset of serialize/pickle.h. Opcodes and their argument encodings follow CPython's
// Lib/pickle.py; tensors are pickled as torch.Tensor.__reduce_ex__ and torch.serialization's
// persistent_id do in PyTorch 1.13 (torch/_tensor.py, torch/serialization.py).
#include "serialize/pickle.h"

#include <bit>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "ctorch/tensor_impl.h"

namespace ctorch::serialization::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "pickle's binary ints are little-endian");

enum Op : uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', BINFLOAT = 'G', BININT = 'J', BININT1 = 'K',
  BININT2 = 'M', NONE = 'N', BINPERSID = 'Q', REDUCE = 'R', BINUNICODE = 'X', APPEND = 'a', BUILD = 'b',
  GLOBAL = 'c', DICT = 'd', EMPTY_DICT = '}', APPENDS = 'e', BINGET = 'h', LONG_BINGET = 'j', LIST = 'l',
  EMPTY_LIST = ']', BINPUT = 'q', LONG_BINPUT = 'r', SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')',
  SETITEMS = 'u', PROTO = 0x80, NEWOBJ = 0x81, TUPLE1 = 0x85, TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88,
  NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b, SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, STACK_GLOBAL = 0x93,
  MEMOIZE = 0x94, FRAME = 0x95,
};

// ---- writing ----

class Pickler {
 public:
  explicit Pickler(const std::function<StorageRef(const Tensor&)>& storage_of) : storage_of_(storage_of) {}

  std::string dump(const Value& obj) {
    out_ += static_cast<char>(PROTO);
    out_ += '\x02';
    write(obj, 0);
    out_ += static_cast<char>(STOP);
    return std::move(out_);
  }

 private:
  void op(Op o) { out_ += static_cast<char>(o); }
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }

  void write_int(int64_t v) {
    if (v >= 0 && v < 256) {
      op(BININT1);
      out_ += static_cast<char>(v);
    } else if (v >= 0 && v < 65536) {
      op(BININT2);
      const auto u = static_cast<uint16_t>(v);
      raw(&u, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op(BININT);
      const auto i = static_cast<int32_t>(v);
      raw(&i, 4);
    } else {  // LONG1: the fewest little-endian two's-complement bytes that keep the sign
      int n = 8;
      while (n > 1) {
        const int64_t shifted = v >> (8 * (n - 1) - 1);
        if (shifted != 0 && shifted != -1) break;
        --n;
      }
      op(LONG1);
      out_ += static_cast<char>(n);
      raw(&v, static_cast<size_t>(n));
    }
  }
  void write_str(std::string_view s) {
    op(BINUNICODE);
    const auto n = static_cast<uint32_t>(s.size());
    raw(&n, 4);
    out_ += s;
  }
  void write_global(std::string_view module, std::string_view name) {
    op(GLOBAL);
    out_ += module;
    out_ += '\n';
    out_ += name;
    out_ += '\n';
  }
  void write_tuple_of_ints(IntArrayRef v) {
    if (v.empty()) return op(EMPTY_TUPLE);
    if (v.size() > 3) op(MARK);
    for (int64_t x : v) write_int(x);
    op(v.size() == 1 ? TUPLE1 : v.size() == 2 ? TUPLE2 : v.size() == 3 ? TUPLE3 : TUPLE);
  }
  void write_empty_ordered_dict() {
    write_global("collections", "OrderedDict");
    op(EMPTY_TUPLE);
    op(REDUCE);
  }
  // torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict())
  void write_tensor(const Tensor& t, bool requires_grad) {
    const StorageRef ref = storage_of_(t);
    write_global("torch._utils", "_rebuild_tensor_v2");
    op(MARK);
    op(MARK);
    write_str("storage");
    write_global("torch", std::string(scalar_type_cpp_name(ref.dtype)) + "Storage");
    write_str(ref.key);
    write_str(ref.location);
    write_int(ref.numel);
    op(TUPLE);
    op(BINPERSID);
    write_int(t.storage_offset());
    write_tuple_of_ints(t.sizes());
    write_tuple_of_ints(t.strides());
    op(requires_grad ? NEWTRUE : NEWFALSE);
    write_empty_ordered_dict();
    op(TUPLE);
    op(REDUCE);
  }

  void write(const Value& v, int depth) {
    CTORCH_CHECK_VALUE(depth < 1000, "torch.save: the object is nested more than 1000 levels deep");
    switch (v.kind()) {
      case Value::Kind::None: return op(NONE);
      case Value::Kind::Bool: return op(v.to_bool() ? NEWTRUE : NEWFALSE);
      case Value::Kind::Int: return write_int(v.to_int());
      case Value::Kind::Float: {
        op(BINFLOAT);
        const uint64_t bits = __builtin_bswap64(std::bit_cast<uint64_t>(v.to_double()));  // big-endian
        return raw(&bits, 8);
      }
      case Value::Kind::String: return write_str(v.to_string());
      case Value::Kind::Tensor: {
        const Tensor& t = v.to_tensor();
        if (!v.is_parameter()) return write_tensor(t, t.requires_grad());
        // torch._utils._rebuild_parameter(data, requires_grad, OrderedDict())
        write_global("torch._utils", "_rebuild_parameter");
        op(MARK);
        write_tensor(t, false);
        op(t.requires_grad() ? NEWTRUE : NEWFALSE);
        write_empty_ordered_dict();
        op(TUPLE);
        return op(REDUCE);
      }
      case Value::Kind::Tuple: {
        const auto& e = v.elements();
        if (e.empty()) return op(EMPTY_TUPLE);
        op(MARK);
        for (const Value& x : e) write(x, depth + 1);
        return op(TUPLE);
      }
      case Value::Kind::List: {
        op(EMPTY_LIST);
        if (v.elements().empty()) return;
        op(MARK);
        for (const Value& x : v.elements()) write(x, depth + 1);
        return op(APPENDS);
      }
      case Value::Kind::Dict: {
        if (v.is_ordered_dict()) {
          write_empty_ordered_dict();
        } else {
          op(EMPTY_DICT);
        }
        if (!v.items().empty()) {
          op(MARK);
          for (const auto& [k, x] : v.items()) {
            write(k, depth + 1);
            write(x, depth + 1);
          }
          op(SETITEMS);
        }
        if (const Value* attrs = v.attributes()) {  // OrderedDict.__reduce__'s state: the instance __dict__
          write(*attrs, depth + 1);
          op(BUILD);
        }
        return;
      }
    }
  }

  const std::function<StorageRef(const Tensor&)>& storage_of_;
  std::string out_;
};

// ---- reading ----

// The globals the reader knows; anything else is refused by name.
enum class Global { OrderedDict, RebuildTensorV2, RebuildParameter, RebuildParameterWithState, Size, Storage };

// One stack entry: a Value, or an object that exists only while unpickling.
struct Item {
  enum class Tag { Value, Global, Storage, RawTuple } tag = Tag::Value;
  Value value;
  Global global = Global::OrderedDict;
  ScalarType storage_dtype = kFloat;  // a Storage global's type, or a loaded storage's
  Tensor storage;
  std::vector<Item> raw;  // a tuple holding non-Values (a persistent id, _rebuild_tensor_v2's args)
};

[[noreturn]] void bad(const std::string& what) { throw UnpicklingError("ctorch.load: " + what); }

class Unpickler {
 public:
  Unpickler(std::string_view data, const std::function<Tensor(const StorageRef&)>& load_storage)
      : in_(data), load_storage_(load_storage) {}

  Value load() {
    while (true) {
      const uint8_t code = byte();
      if (code == STOP) break;
      step(code);
    }
    if (stack_.size() != 1 || !marks_.empty()) bad("the pickle's stack is unbalanced at STOP");
    return to_value(std::move(stack_.back()));
  }

 private:
  // -- input --
  std::string_view take(uint64_t n) {
    if (n > in_.size() - pos_) bad("the pickle is truncated");
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint8_t byte() { return static_cast<uint8_t>(take(1)[0]); }
  template <class T>
  T le() {
    T v;
    std::memcpy(&v, take(sizeof(T)).data(), sizeof(T));
    return v;
  }
  std::string line() {
    const size_t nl = in_.find('\n', pos_);
    if (nl == std::string_view::npos) bad("the pickle is truncated");
    std::string s(in_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }

  // -- stack --
  void push(Value v) {
    Item it;
    it.value = std::move(v);
    stack_.push_back(std::move(it));
  }
  Item pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) bad("the pickle pops from an empty stack");
    Item it = std::move(stack_.back());
    stack_.pop_back();
    return it;
  }
  Item& top() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) bad("the pickle reads an empty stack");
    return stack_.back();
  }
  std::vector<Item> pop_mark() {
    if (marks_.empty()) bad("the pickle has no MARK to pop to");
    const size_t at = marks_.back();
    marks_.pop_back();
    std::vector<Item> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(at)),
                            std::make_move_iterator(stack_.end()));
    stack_.resize(at);
    return items;
  }
  static Value to_value(Item it) {
    if (it.tag != Item::Tag::Value) bad("the checkpoint holds a bare storage, class or tuple of them (not supported)");
    return std::move(it.value);
  }
  // A tuple of the items, kept raw when one of them is not a Value.
  static Item make_tuple(std::vector<Item> items) {
    Item t;
    for (const Item& i : items) {
      if (i.tag != Item::Tag::Value) {
        t.tag = Item::Tag::RawTuple;
        t.raw = std::move(items);
        return t;
      }
    }
    std::vector<Value> v;
    v.reserve(items.size());
    for (Item& i : items) v.push_back(std::move(i.value));
    t.value = Value::tuple(std::move(v));
    return t;
  }
  // The items of a tuple argument (REDUCE's args, a persistent id).
  static std::vector<Item> tuple_items(Item t) {
    if (t.tag == Item::Tag::RawTuple) return std::move(t.raw);
    if (t.tag != Item::Tag::Value || t.value.kind() != Value::Kind::Tuple) bad("expected a tuple of arguments");
    std::vector<Item> out;
    for (const Value& v : t.value.elements()) {
      Item i;
      i.value = v;
      out.push_back(std::move(i));
    }
    return out;
  }

  // Refuses a container that would contain itself (a cycle, which the Value tree cannot hold).
  static bool reaches(const Value& from, const void* target, int depth) {
    if (depth > 1000) bad("the object is nested more than 1000 levels deep");
    const void* id = from.container_id();
    if (id == nullptr) return false;
    if (id == target) return true;
    if (from.is_dict()) {
      for (const auto& [k, e] : from.items()) {
        if (reaches(e, target, depth + 1)) return true;
      }
      return from.attributes() != nullptr && reaches(*from.attributes(), target, depth + 1);
    }
    for (const Value& e : from.elements()) {
      if (reaches(e, target, depth + 1)) return true;
    }
    return false;
  }
  static void check_insert(const Value& container, const Value& v) {
    if (reaches(v, container.container_id(), 0)) bad("the object contains itself (recursive containers are not supported)");
  }
  void append_to(Item& list, Item v) {
    if (list.tag != Item::Tag::Value || list.value.kind() != Value::Kind::List) bad("APPEND to something not a list");
    Value x = to_value(std::move(v));
    check_insert(list.value, x);
    list.value.append(std::move(x));
  }
  void set_in(Item& dict, Item k, Item v) {
    if (dict.tag != Item::Tag::Value || !dict.value.is_dict()) bad("SETITEM on something not a dict");
    Value key = to_value(std::move(k));
    if (key.kind() == Value::Kind::List || key.kind() == Value::Kind::Dict) bad("a dict key is unhashable");
    Value x = to_value(std::move(v));
    check_insert(dict.value, x);
    dict.value.set(std::move(key), std::move(x));
  }

  void memo_put(uint64_t key) {
    if (memo_.size() > 10'000'000) bad("the pickle's memo is too large");
    memo_[key] = top();
  }
  void memo_get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) bad("memo key " + std::to_string(key) + " was never stored");
    stack_.push_back(it->second);
  }

  Item find_global(const std::string& module, const std::string& name) {
    Item g;
    g.tag = Item::Tag::Global;
    if (module == "collections" && name == "OrderedDict") {
      g.global = Global::OrderedDict;
    } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
      g.global = Global::RebuildTensorV2;
    } else if (module == "torch._utils" && name == "_rebuild_parameter") {
      g.global = Global::RebuildParameter;
    } else if (module == "torch._utils" && name == "_rebuild_parameter_with_state") {
      g.global = Global::RebuildParameterWithState;
    } else if (module == "torch" && name == "Size") {
      g.global = Global::Size;
    } else if (module == "torch" && name.size() > 7 && name.ends_with("Storage")) {
      const std::string type = name.substr(0, name.size() - 7);
      for (int i = 0; i < kNumScalarTypes; ++i) {
        if (type == scalar_type_cpp_name(static_cast<ScalarType>(i))) {
          g.global = Global::Storage;
          g.storage_dtype = static_cast<ScalarType>(i);
          return g;
        }
      }
      bad("storage type torch." + name + " is not supported");
    } else {
      bad("the checkpoint holds " + module + "." + name +
          "; ctorch reads tensors, dicts, lists, tuples, strings and numbers, and never runs a pickled class");
    }
    return g;
  }

  static int64_t int_arg(const Item& i, const char* what) {
    if (i.tag != Item::Tag::Value || (i.value.kind() != Value::Kind::Int && i.value.kind() != Value::Kind::Bool)) {
      bad(std::string("expected an int for ") + what);
    }
    return i.value.to_int();
  }
  static std::vector<int64_t> ints_arg(const Item& i, const char* what) {
    if (i.tag != Item::Tag::Value || i.value.kind() != Value::Kind::Tuple) bad(std::string("expected a tuple for ") + what);
    std::vector<int64_t> out;
    for (const Value& v : i.value.elements()) {
      if (v.kind() != Value::Kind::Int) bad(std::string("expected ints in ") + what);
      out.push_back(v.to_int());
    }
    return out;
  }

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks[, metadata])
  Value rebuild_tensor(std::vector<Item> a) {
    if (a.size() != 6 && a.size() != 7) bad("_rebuild_tensor_v2 takes 6 or 7 arguments");
    if (a[0].tag != Item::Tag::Storage) bad("_rebuild_tensor_v2's first argument is not a storage");
    const Tensor& storage = a[0].storage;
    const int64_t offset = int_arg(a[1], "a storage offset");
    const std::vector<int64_t> size = ints_arg(a[2], "a tensor's size");
    const std::vector<int64_t> stride = ints_arg(a[3], "a tensor's stride");
    const bool requires_grad = int_arg(a[4], "requires_grad") != 0;
    if (size.size() != stride.size()) bad("a tensor's size and stride differ in length");
    // The view must lie inside the storage (PyTorch's set_ checks the same).
    bool empty = false;
    int64_t last = offset;
    if (offset < 0) bad("a negative storage offset");
    for (size_t d = 0; d < size.size(); ++d) {
      if (size[d] < 0 || stride[d] < 0) bad("a negative size or stride");
      if (size[d] == 0) empty = true;
      int64_t extent = 0;
      if (size[d] > 0 && (__builtin_mul_overflow(size[d] - 1, stride[d], &extent) ||
                          __builtin_add_overflow(last, extent, &last))) {
        bad("a tensor's extent overflows");
      }
    }
    if (!empty && last >= storage.numel()) {
      bad("a tensor of size " + std::to_string(size.size()) + "-d reaches element " + std::to_string(last) +
          " of a storage of " + std::to_string(storage.numel()));
    }
    Tensor t(IntrusivePtr<TensorImpl>::make(storage.impl()->storage(), storage.dtype(), IntArrayRef(size),
                                            IntArrayRef(stride), empty ? 0 : offset));
    if (requires_grad) {
      if (!is_floating_point(t.dtype()) && !is_complex(t.dtype())) {
        bad("only tensors of floating point and complex dtype can require gradients");
      }
      t.requires_grad_(true);
    }
    return Value(std::move(t));
  }

  Item call(Item fn, Item args_item) {
    if (fn.tag != Item::Tag::Global) bad("REDUCE calls something that is not a known class or function");
    std::vector<Item> args = tuple_items(std::move(args_item));
    Item out;
    switch (fn.global) {
      case Global::OrderedDict:
        if (!args.empty()) bad("OrderedDict() with arguments is not supported");
        out.value = Value::dict({}, true);
        return out;
      case Global::RebuildTensorV2:
        out.value = rebuild_tensor(std::move(args));
        return out;
      case Global::RebuildParameter:
      case Global::RebuildParameterWithState: {
        if (args.size() != (fn.global == Global::RebuildParameter ? 3u : 4u)) bad("_rebuild_parameter: wrong arguments");
        if (args[0].tag != Item::Tag::Value || !args[0].value.is_tensor()) bad("_rebuild_parameter of a non-tensor");
        Tensor t = args[0].value.to_tensor();
        if (int_arg(args[1], "requires_grad") != 0) {
          if (!is_floating_point(t.dtype()) && !is_complex(t.dtype())) bad("only tensors of floating point and complex dtype can require gradients");
          t.requires_grad_(true);
        }
        out.value = Value(std::move(t), /*is_parameter=*/true);
        return out;
      }
      case Global::Size:  // torch.Size((2, 3)) is a tuple
        if (args.size() != 1 || args[0].tag != Item::Tag::Value) bad("torch.Size: wrong arguments");
        if (args[0].value.kind() != Value::Kind::Tuple && args[0].value.kind() != Value::Kind::List) bad("torch.Size of a non-sequence");
        out.value = Value::tuple(args[0].value.elements());
        return out;
      case Global::Storage:
        bad("a storage type is called (legacy storages are not supported)");
    }
    bad("unreachable");
  }

  Item persistent_load(Item pid) {
    std::vector<Item> t = tuple_items(std::move(pid));
    if (t.size() != 5 || t[0].tag != Item::Tag::Value || t[0].value.kind() != Value::Kind::String ||
        t[0].value.to_string() != "storage") {
      bad("a persistent id other than ('storage', type, key, location, numel)");
    }
    if (t[1].tag != Item::Tag::Global || t[1].global != Global::Storage) bad("a storage of unknown type");
    for (int i : {2, 3}) {
      if (t[i].tag != Item::Tag::Value || t[i].value.kind() != Value::Kind::String) bad("a storage key or location is not a string");
    }
    const int64_t numel = int_arg(t[4], "a storage's size");
    if (numel < 0) bad("a negative storage size");
    StorageRef ref{t[1].storage_dtype, t[2].value.to_string(), t[3].value.to_string(), numel};
    const std::string id = ref.key;
    auto it = storages_.find(id);
    Item s;
    s.tag = Item::Tag::Storage;
    s.storage_dtype = ref.dtype;
    if (it != storages_.end()) {
      if (it->second.dtype() != ref.dtype) bad("storage " + id + " is read as two dtypes");
      s.storage = it->second;
    } else {
      s.storage = load_storage_(ref);
      storages_.emplace(id, s.storage);
    }
    return s;
  }

  void step(uint8_t code) {
    switch (code) {
      case PROTO: {
        const uint8_t v = byte();
        if (v > 5) bad("pickle protocol " + std::to_string(v) + " is not supported");
        return;
      }
      case FRAME: take(8); return;
      case MARK: marks_.push_back(stack_.size()); return;
      case POP: pop(); return;
      case POP_MARK: pop_mark(); return;
      case DUP: { Item c = top(); stack_.push_back(std::move(c)); return; }
      case NONE: return push(Value());
      case NEWTRUE: return push(Value(true));
      case NEWFALSE: return push(Value(false));
      case BININT: return push(Value(static_cast<int64_t>(le<int32_t>())));
      case BININT1: return push(Value(static_cast<int64_t>(byte())));
      case BININT2: return push(Value(static_cast<int64_t>(le<uint16_t>())));
      case LONG1:
      case LONG4: {
        const uint64_t n = code == LONG1 ? byte() : le<uint32_t>();
        if (n > 8) bad("an integer wider than 64 bits");
        std::string_view b = take(n);
        uint64_t u = 0;
        for (size_t i = 0; i < n; ++i) u |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
        if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) u |= ~uint64_t{0} << (8 * n);  // sign-extend
        return push(Value(static_cast<int64_t>(u)));
      }
      case BINFLOAT: {
        uint64_t bits;
        std::memcpy(&bits, take(8).data(), 8);
        return push(Value(std::bit_cast<double>(__builtin_bswap64(bits))));
      }
      case SHORT_BINUNICODE: return push(Value(std::string(take(byte()))));
      case BINUNICODE: return push(Value(std::string(take(le<uint32_t>()))));
      case BINUNICODE8: return push(Value(std::string(take(le<uint64_t>()))));
      case EMPTY_TUPLE: return push(Value::tuple({}));
      case TUPLE1:
      case TUPLE2:
      case TUPLE3: {
        const size_t n = code - TUPLE1 + 1;
        std::vector<Item> items(n);
        for (size_t i = n; i-- > 0;) items[i] = pop();
        stack_.push_back(make_tuple(std::move(items)));
        return;
      }
      case TUPLE: stack_.push_back(make_tuple(pop_mark())); return;
      case EMPTY_LIST: return push(Value::list({}));
      case LIST: {
        Item l;
        l.value = Value::list({});
        for (Item& i : pop_mark()) append_to(l, std::move(i));
        stack_.push_back(std::move(l));
        return;
      }
      case APPEND: {
        Item v = pop();
        append_to(top(), std::move(v));
        return;
      }
      case APPENDS: {
        std::vector<Item> items = pop_mark();
        Item& l = top();
        for (Item& i : items) append_to(l, std::move(i));
        return;
      }
      case EMPTY_DICT: return push(Value::dict());
      case DICT: {
        std::vector<Item> items = pop_mark();
        if (items.size() % 2) bad("DICT with an odd number of items");
        Item d;
        d.value = Value::dict();
        for (size_t i = 0; i < items.size(); i += 2) set_in(d, std::move(items[i]), std::move(items[i + 1]));
        stack_.push_back(std::move(d));
        return;
      }
      case SETITEM: {
        Item v = pop();
        Item k = pop();
        set_in(top(), std::move(k), std::move(v));
        return;
      }
      case SETITEMS: {
        std::vector<Item> items = pop_mark();
        if (items.size() % 2) bad("SETITEMS with an odd number of items");
        Item& d = top();
        for (size_t i = 0; i < items.size(); i += 2) set_in(d, std::move(items[i]), std::move(items[i + 1]));
        return;
      }
      case BINPUT: return memo_put(byte());
      case LONG_BINPUT: return memo_put(le<uint32_t>());
      case MEMOIZE: return memo_put(memo_.size());
      case BINGET: return memo_get(byte());
      case LONG_BINGET: return memo_get(le<uint32_t>());
      case GLOBAL: {
        std::string module = line();
        std::string name = line();
        stack_.push_back(find_global(module, name));
        return;
      }
      case STACK_GLOBAL: {
        Item name = pop();
        Item module = pop();
        if (module.tag != Item::Tag::Value || module.value.kind() != Value::Kind::String ||
            name.tag != Item::Tag::Value || name.value.kind() != Value::Kind::String) {
          bad("STACK_GLOBAL of non-strings");
        }
        stack_.push_back(find_global(module.value.to_string(), name.value.to_string()));
        return;
      }
      case REDUCE:
      case NEWOBJ: {
        Item args = pop();
        Item fn = pop();
        stack_.push_back(call(std::move(fn), std::move(args)));
        return;
      }
      case BUILD: {  // only an OrderedDict's attributes (a state_dict's _metadata)
        Item state = pop();
        Item& obj = top();
        if (obj.tag != Item::Tag::Value || !obj.value.is_ordered_dict() || state.tag != Item::Tag::Value ||
            !state.value.is_dict()) {
          bad("BUILD (setting an object's state) is supported for OrderedDict attributes only");
        }
        check_insert(obj.value, state.value);
        obj.value.set_attributes(std::move(state.value));
        return;
      }
      case BINPERSID: {
        Item pid = pop();
        stack_.push_back(persistent_load(std::move(pid)));
        return;
      }
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", code);
        bad(std::string("pickle opcode ") + hex + " at byte " + std::to_string(pos_ - 1) + " is not supported");
      }
    }
  }

  std::string_view in_;
  size_t pos_ = 0;
  const std::function<Tensor(const StorageRef&)>& load_storage_;
  std::vector<Item> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Item> memo_;
  std::unordered_map<std::string, Tensor> storages_;
};

}  // namespace

std::string pickle(const Value& obj, const std::function<StorageRef(const Tensor&)>& storage_of) {
  return Pickler(storage_of).dump(obj);
}

Value unpickle(std::string_view data, const std::function<Tensor(const StorageRef&)>& load_storage) {
  return Unpickler(data, load_storage).load();
}

}  // namespace ctorch::serialization::detail
