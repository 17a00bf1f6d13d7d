// torch.save / torch.load in PyTorch's zip format: the archive's layout as PyTorch 1.13 writes
// it, round trips of every kind and dtype, shared storages, hand-written pickles for what
// Python writes and ctorch does not (other protocols, memo opcodes), refusals, and every
// truncation and byte flip of a checkpoint raising a typed error. Files written by Python's
// torch.save are read in python/tests/test_serialization.py, side by side with python3-torch.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "ctorch/ctorch.h"
#include "serialize/zip_archive.h"
#include "test_util.h"

namespace ctorch {
namespace {

using serialization::UnpicklingError;
using serialization::Value;

// The names of an archive's records, in order, read from its central directory by hand.
std::vector<std::string> record_names(const std::string& zip) {
  std::vector<std::string> names;
  const size_t end = zip.rfind(std::string("PK\x05\x06", 4));
  auto u16 = [&](size_t at) { return static_cast<uint8_t>(zip[at]) | static_cast<uint8_t>(zip[at + 1]) << 8; };
  auto u32 = [&](size_t at) { return static_cast<uint32_t>(u16(at) | u16(at + 2) << 16); };
  size_t at = u32(end + 16);
  for (int i = 0; i < u16(end + 10); ++i) {
    const size_t n = u16(at + 28);
    names.push_back(zip.substr(at + 46, n));
    // Every record's data starts on a 64-byte boundary, as PyTorchStreamWriter aligns it.
    const size_t local = u32(at + 42);
    EXPECT_EQ((local + 30 + u16(local + 26) + u16(local + 28)) % 64, 0u) << names.back();
    at += 46 + n + u16(at + 30) + u16(at + 32);
  }
  return names;
}

TEST(Serialization, ArchiveHasPyTorchsRecords) {
  Tensor a = arange(6, TensorOptions().dtype(kFloat)).reshape({2, 3});
  Tensor b = a[1];  // shares a's storage: one record
  Tensor c = ones({2}, TensorOptions().dtype(kLong));
  const std::string zip = serialization::save_to_bytes(Value::list({a, b, c}));
  EXPECT_EQ(record_names(zip), (std::vector<std::string>{"archive/data.pkl", "archive/data/0", "archive/data/1",
                                                           "archive/version"}));
  Value back = serialization::load_from_bytes(zip);
  ASSERT_EQ(back.elements().size(), 3u);
  EXPECT_TRUE(equal(back.elements()[0].to_tensor(), a));
  EXPECT_TRUE(equal(back.elements()[1].to_tensor(), b));
  EXPECT_EQ(back.elements()[1].to_tensor().storage_offset(), 3);
  EXPECT_TRUE(equal(back.elements()[2].to_tensor(), c));
  // The view still shares memory with its base after loading.
  Tensor base = back.elements()[0].to_tensor();
  base.fill_(7);
  EXPECT_EQ(back.elements()[1].to_tensor().sum().item<float>(), 21.0f);
}

TEST(Serialization, EveryDtypeAndKindRoundTrips) {
  Value::Items items;
  for (ScalarType t : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble, kComplexFloat,
                       kComplexDouble}) {
    Tensor x = arange(5, TensorOptions().dtype(kDouble)).to(t);
    items.emplace_back(Value(scalar_type_name(t)), Value(x));
  }
  items.emplace_back("none", Value());
  items.emplace_back("flag", true);
  items.emplace_back("small", 7);
  items.emplace_back("big", int64_t{-1234567890123});
  items.emplace_back("pi", 3.14159);
  items.emplace_back("text", "héllo");
  items.emplace_back(3, Value::tuple({1, "two", Value::list({})}));
  items.emplace_back("scalar", Value(tensor(2.5)));
  items.emplace_back("empty", Value(empty({0, 4})));
  items.emplace_back("strided", Value(arange(12).reshape({3, 4}).t()));
  const Value obj = Value::dict(items);
  const Value back = serialization::load_from_bytes(serialization::save_to_bytes(obj));
  ASSERT_EQ(back.items().size(), obj.items().size());
  for (size_t i = 0; i < obj.items().size(); ++i) {
    const auto& [k, v] = obj.items()[i];
    const auto& [k2, v2] = back.items()[i];
    EXPECT_TRUE(k == k2);
    if (v.is_tensor()) {
      const Tensor& x = v.to_tensor();
      const Tensor& y = v2.to_tensor();
      EXPECT_EQ(y.dtype(), x.dtype());
      EXPECT_EQ(y.sizes(), x.sizes());
      EXPECT_EQ(y.strides(), x.strides());
      EXPECT_TRUE(equal(y, x)) << k.to_string();
    } else {
      EXPECT_TRUE(v == v2) << i;
    }
  }
  EXPECT_EQ(back.at("big").to_int(), -1234567890123);
  EXPECT_EQ(back.at("text").to_string(), "héllo");
  EXPECT_EQ(back.at(3).elements()[1].to_string(), "two");
  EXPECT_THROW(back.at("missing"), IndexError);
  EXPECT_THROW(back.at("pi").to_string(), TypeError);
}

TEST(Serialization, DictKeysBehaveAsPythons) {
  Value d = Value::dict({{"a", 1}, {"b", 2}, {"a", 3}, {1, "int key"}, {true, "bool key replaces 1"}});
  ASSERT_EQ(d.items().size(), 3u);  // "a", "b", 1 (True == 1 in Python)
  EXPECT_EQ(d.at("a").to_int(), 3);
  EXPECT_EQ(d.items()[0].first.to_string(), "a");  // a replaced key keeps its place
  EXPECT_EQ(d.at(1).to_string(), "bool key replaces 1");
  EXPECT_EQ(d.find("missing"), nullptr);
  EXPECT_THROW(Value(1).find("a"), TypeError);
}

TEST(Serialization, IntegersUseEveryWidth) {
  for (int64_t v : {int64_t{0}, int64_t{255}, int64_t{256}, int64_t{65535}, int64_t{65536}, int64_t{-1},
                    int64_t{INT32_MIN}, int64_t{INT32_MAX}, int64_t{INT32_MAX} + 1, int64_t{INT32_MIN} - 1,
                    int64_t{128} << 32, INT64_MAX, INT64_MIN}) {
    EXPECT_EQ(serialization::load_from_bytes(serialization::save_to_bytes(Value(v))).to_int(), v);
  }
}

TEST(Serialization, StateDictAndParametersKeepTheirKind) {
  nn::Linear lin(3, 2);
  const std::string zip = serialization::save_to_bytes(lin.state_dict());
  const Value back = serialization::load_from_bytes(zip);
  EXPECT_TRUE(back.is_ordered_dict());
  nn::Linear other(3, 2);
  other.load_state_dict(back.to_state_dict());
  EXPECT_TRUE(equal(other.weight, lin.weight));
  EXPECT_TRUE(equal(other.bias, lin.bias));
  EXPECT_TRUE(other.weight.requires_grad());  // load_state_dict copies into the parameters

  // A parameter pickled as one (torch._utils._rebuild_parameter) keeps requires_grad.
  Tensor w = ones({2}).requires_grad_(true);
  const Value p = serialization::load_from_bytes(serialization::save_to_bytes(Value(w, /*is_parameter=*/true)));
  EXPECT_TRUE(p.is_parameter());
  EXPECT_TRUE(p.to_tensor().requires_grad());
  EXPECT_TRUE(p.to_tensor().is_leaf());
}

TEST(Serialization, FilesAreReplacedWhole) {
  const auto dir = std::filesystem::temp_directory_path() / "ctorch_serialization_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "model.pt").string();
  save(Value::dict({{"x", Value(ones({3}))}}), path);
  const Value back = load(path);
  EXPECT_TRUE(equal(back.at("x").to_tensor(), ones({3})));
  // The archive's folder is the file's stem, as PyTorchStreamWriter names it.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(record_names(bytes).front(), "model/data.pkl");
  EXPECT_EQ(testing::error_of([&] { save(Value(1), (dir / "no" / "such.pt").string()); }),
            "Parent directory " + (dir / "no").string() + " does not exist.");
  EXPECT_NE(testing::error_of([&] { load((dir / "missing.pt").string()); }).find("No such file or directory"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Serialization, StoragesViewedAsTwoDtypesAreRefused) {
  Tensor a = zeros({4}, TensorOptions().dtype(kComplexFloat));
  Tensor b = view_as_real(a);
  EXPECT_EQ(testing::error_of([&] { serialization::save_to_bytes(Value::list({a, b})); }),
            "Cannot save multiple tensors or storages that view the same data as different types");
}

// ---- pickles as Python writes them ----

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

// A checkpoint holding `pickle` and the given storage records.
std::string archive(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages = {}) {
  serialization::detail::ZipWriter zip("archive");
  zip.add("data.pkl", pickle);
  for (const auto& [key, bytes] : storages) zip.add("data/" + key, bytes);
  zip.add("version", "3\n");
  return zip.finish();
}

// python3-torch 1.13.1: sd = OrderedDict(w=tensor([[1.5, -2.], [3.25, 4.]]), n=tensor(7));
// sd._metadata = OrderedDict({"": {"version": 1}}); torch.save(sd, f, pickle_protocol=P): data.pkl for P = 2 and 4.
const char* kPythonProtocol2 =
    "800263636f6c6c656374696f6e730a4f726465726564446963740a71002952710128580100000077710263746f7263682e5f7574696c73"
    "0a5f72656275696c645f74656e736f725f76320a71032828580700000073746f72616765710463746f7263680a466c6f617453746f7261"
    "67650a71055801000000307106580300000063707571074b04747108514b004b024b028671094b024b0186710a8968002952710b74710c"
    "52710d58010000006e710e68032828680463746f7263680a4c6f6e6753746f726167650a710f580100000031711068074b017471115"
    "14b00292989680029527112747113527114757d711558090000005f6d657461646174617116680029527117580000000071187d711958"
    "0700000076657273696f6e711a4b01737373622e";
const char* kPythonProtocol4 =
    "800495f7000000000000008c0b636f6c6c656374696f6e73948c0b4f72646572656444696374949394295294288c0177948c0c746f72"
    "63682e5f7574696c73948c125f72656275696c645f74656e736f725f763294939428288c0773746f72616765948c05746f726368948c0c"
    "466c6f617453746f726167659493948c0130948c03637075944b047494514b004b024b0286944b024b01869489680229529474945294"
    "8c016e9468072828680868098c0b4c6f6e6753746f726167659493948c013194680d4b017494514b002929896802295294749452947"
    "57d948c095f6d657461646174619468022952948c00947d948c0776657273696f6e944b01737373622e";

TEST(Serialization, ReadsPythonsPickles) {
  const std::vector<std::pair<std::string, std::string>> storages = {
      {"0", unhex("0000c03f000000c00000504000008040")}, {"1", unhex("0700000000000000")}};
  for (const char* hex : {kPythonProtocol2, kPythonProtocol4}) {
    const Value sd = serialization::load_from_bytes(archive(unhex(hex), storages));
    ASSERT_TRUE(sd.is_ordered_dict());
    ASSERT_EQ(sd.items().size(), 2u);
    EXPECT_TRUE(equal(sd.at("w").to_tensor(), tensor({1.5f, -2.0f, 3.25f, 4.0f}).reshape({2, 2})));
    EXPECT_EQ(sd.at("n").to_tensor().dtype(), kLong);
    EXPECT_EQ(sd.at("n").to_tensor().dim(), 0);
    EXPECT_EQ(sd.at("n").to_tensor().item<int64_t>(), 7);
    ASSERT_NE(sd.attributes(), nullptr);
    EXPECT_EQ(sd.attributes()->at("_metadata").at("").at("version").to_int(), 1);
    // Saved again, the metadata goes with it.
    const Value again = serialization::load_from_bytes(serialization::save_to_bytes(sd));
    EXPECT_EQ(again.attributes()->at("_metadata").at("").at("version").to_int(), 1);
  }
}

TEST(Serialization, RefusesWhatItDoesNotRead) {
  const std::string cls = unhex("8002") + "c__main__\nNet\n)R.";
  EXPECT_NE(testing::error_of<UnpicklingError>([&] { serialization::load_from_bytes(archive(cls)); })
                .find("the checkpoint holds __main__.Net; ctorch reads tensors"),
            std::string::npos);
  const std::string recursive = unhex("80025d71006800612e");  // l = []; l.append(l): ] q0 h0 a .
  EXPECT_NE(testing::error_of<UnpicklingError>([&] { serialization::load_from_bytes(archive(recursive)); })
                .find("contains itself"),
            std::string::npos);
  EXPECT_NE(testing::error_of<UnpicklingError>([&] { serialization::load_from_bytes("not a zip file at all"); })
                .find("not one"),
            std::string::npos);
  serialization::detail::ZipWriter no_pickle("archive");
  no_pickle.add("version", "3\n");
  EXPECT_EQ(testing::error_of<serialization::CheckpointError>([&] { serialization::load_from_bytes(no_pickle.finish()); }),
            "PytorchStreamReader failed locating file data.pkl: file not found");
  // A storage record shorter than the tensor needs.
  const std::vector<std::pair<std::string, std::string>> short_storage = {{"0", std::string(8, '\0')},
                                                                           {"1", std::string(8, '\0')}};
  EXPECT_NE(testing::error_of<serialization::CheckpointError>([&] { serialization::load_from_bytes(archive(unhex(kPythonProtocol2), short_storage)); })
                .find("storage 0 holds 8 bytes"),
            std::string::npos);
}

TEST(Serialization, MissingCudaDeviceGetsPyTorchsAdvice) {
  if (cuda::is_available()) GTEST_SKIP() << "a cuda device is present";
  // The protocol-2 pickle with its first storage's location changed from "cpu" to "cuda:0"... as a
  // length-prefixed string: X 03000000 "cpu" -> X 06000000 "cuda:0".
  std::string p = unhex(kPythonProtocol2);
  const std::string cpu = unhex("5803000000") + "cpu";
  const size_t at = p.find(cpu);
  ASSERT_NE(at, std::string::npos);
  p.replace(at, cpu.size(), unhex("5806000000") + "cuda:0");
  const std::vector<std::pair<std::string, std::string>> storages = {
      {"0", unhex("0000c03f000000c00000504000008040")}, {"1", unhex("0700000000000000")}};
  EXPECT_NE(testing::error_of<DeviceError>([&] { serialization::load_from_bytes(archive(p, storages)); })
                .find("torch.cuda.is_available() is False"),
            std::string::npos);
  const Value on_cpu = serialization::load_from_bytes(archive(p, storages), Device("cpu"));
  EXPECT_TRUE(on_cpu.at("w").to_tensor().is_cpu());
  const Value renamed = serialization::load_from_bytes(archive(p, storages), std::map<std::string, std::string>{{"cuda:0", "cpu"}});
  EXPECT_TRUE(renamed.at("w").to_tensor().is_cpu());
}

// Every truncation of a checkpoint raises a typed error; every single-byte change either raises
// one or loads the same values (a byte the format does not read: a date, a padding byte). Never a
// crash, a hang or an untyped exception (also run under ASan in CI).
TEST(Serialization, CorruptFilesRaiseTypedErrors) {
  nn::Linear lin(2, 2);
  const std::string good = serialization::save_to_bytes(Value::dict({{"model", Value(lin.state_dict())},
                                                                      {"epoch", 3}, {"loss", 0.25}}));
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW(serialization::load_from_bytes(std::string_view(good).substr(0, n)), serialization::CheckpointError) << n;
  }
  int raised = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      try {
        const Value v = serialization::load_from_bytes(bad);
        EXPECT_EQ(v.at("epoch").to_int(), 3) << i;
        EXPECT_EQ(v.at("loss").to_double(), 0.25) << i;
        EXPECT_TRUE(equal(v.at("model").at("weight").to_tensor(), lin.weight)) << i;
        EXPECT_TRUE(equal(v.at("model").at("bias").to_tensor(), lin.bias)) << i;
      } catch (const Error&) {
        ++raised;
      }
    }
  }
  EXPECT_GT(raised, static_cast<int>(good.size()));  // most bytes are read and checked
}

// The unpickler behind a valid archive (the CRC check keeps random bytes from reaching it
// otherwise): seeded mutations of a real checkpoint's pickle -- flipped, replaced, inserted, deleted
// and duplicated bytes -- each loads or raises a ctorch error. 50000 by default (CTORCH_FUZZ_CASES
// and CTORCH_FUZZ_SEED run more); ASan in CI checks every read stays in bounds.
TEST(Serialization, MutatedPicklesLoadOrRaise) {
  nn::Linear lin(2, 3);
  std::string pickle;
  {
    const std::string zip = serialization::save_to_bytes(
        Value::dict({{"model", Value(lin.state_dict())}, {"opt", Value::list({1, 2.5, "x", Value(), true})},
                     {"t", Value::tuple({Value(ones({2}), true), -70000, int64_t{1} << 40})}}));
    serialization::detail::ZipReader reader(zip);
    pickle = std::string(reader.record("data.pkl"));
  }
  const std::vector<std::pair<std::string, std::string>> storages = {
      {"0", std::string(24, '\0')}, {"1", std::string(12, '\0')}, {"2", std::string(8, '\0')}};
  const char* cases_env = std::getenv("CTORCH_FUZZ_CASES");
  const char* seed_env = std::getenv("CTORCH_FUZZ_SEED");
  const int cases = cases_env ? std::atoi(cases_env) : 50000;
  std::mt19937_64 rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 1);
  int loaded = 0;
  for (int i = 0; i < cases; ++i) {
    std::string p = pickle;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !p.empty(); ++e) {
      const size_t at = rng() % p.size();
      switch (rng() % 5) {
        case 0: p[at] = static_cast<char>(p[at] ^ (1u << (rng() % 8))); break;
        case 1: p[at] = static_cast<char>(rng()); break;
        case 2: p.insert(p.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng())); break;
        case 3: p.erase(at, 1 + rng() % 8); break;
        default: p.insert(at, p.substr(rng() % p.size(), 1 + rng() % 16)); break;
      }
    }
    try {
      (void)serialization::load_from_bytes(archive(p, storages));
      ++loaded;
    } catch (const Error&) {
    }
  }
  EXPECT_GT(loaded, 0);  // some mutations (a changed number, a string) still load
  EXPECT_LT(loaded, cases);
}

}  // namespace
}  // namespace ctorch
