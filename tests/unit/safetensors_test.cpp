// safetensors: golden bytes as the Python library writes them (the first two are the Rust crate's
// own test vectors, safetensors/src/tensor.rs test_serialization and test_empty), round trips of
// every dtype, and every malformed-file check.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "ctorch/ctorch.h"

namespace ctorch {
namespace {

using safetensors::SafetensorError;

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

// A file from its header text (padded by the caller) and data bytes.
std::string file_of(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

void expect_error(const std::string& bytes, const std::string& kind) {
  try {
    (void)safetensors::load(bytes);
    ADD_FAILURE() << "no error, expected " << kind;
  } catch (const SafetensorError& e) {
    EXPECT_NE(std::string(e.what()).find("Error while deserializing header: " + kind), std::string::npos) << e.what();
  }
}

TEST(Safetensors, OneFloatTensorMatchesThePythonLibraryByteForByte) {
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u);  // already a multiple of 8: no padding
  const std::string golden = file_of(header, raw<float>({0, 1, 2, 3, 4, 5}));
  const Tensor t = arange(6, TensorOptions().dtype(kFloat)).reshape({1, 2, 3});
  EXPECT_EQ(safetensors::save({{"attn.0", t}}), golden);
  const auto loaded = safetensors::load(golden);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded.at("attn.0").sizes().vec(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(loaded.at("attn.0").equal(t));
}

TEST(Safetensors, EmptyDictWithAndWithoutMetadata) {
  EXPECT_EQ(safetensors::save({}), le64(8) + "{}      ");
  const std::string with_meta = le64(40) + R"({"__metadata__":{"framework":"pt"}})" + "     ";
  EXPECT_EQ(safetensors::save({}, safetensors::Metadata{{"framework", "pt"}}), with_meta);
  EXPECT_TRUE(safetensors::load(with_meta).empty());
  EXPECT_EQ(safetensors::load_metadata(with_meta), (safetensors::Metadata{{"framework", "pt"}}));
  EXPECT_EQ(safetensors::load_metadata(le64(8) + "{}      "), std::nullopt);
  // An empty map still writes "__metadata__":{} (Python's metadata={} vs None).
  EXPECT_EQ(safetensors::save({}, safetensors::Metadata{}), le64(24) + R"({"__metadata__":{}})" + "     ");
}

TEST(Safetensors, TensorsAreOrderedByDtypeWidthThenName) {
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
      R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"d":{"dtype":"BF16","shape":[],"data_offsets":[16,18]},)"
      R"("c":{"dtype":"BOOL","shape":[3],"data_offsets":[18,21]}})"
      "      ";
  ASSERT_EQ(header.size(), 256u);
  const std::string data = raw<int64_t>({-7}) + raw<float>({1.5f, -2}) + std::string("\x80\x3f", 2) + std::string("\1\0\1", 3);
  const std::string golden = file_of(header, data);
  std::map<std::string, Tensor> tensors = {
      {"a", tensor({1.5f, -2.0f})},
      {"b", tensor({int64_t{-7}})},
      {"c", tensor({true, false, true})},
      {"d", full({}, 1.0, TensorOptions().dtype(kBFloat16))},
  };
  EXPECT_EQ(safetensors::save(tensors, safetensors::Metadata{{"format", "pt"}}), golden);
  const auto loaded = safetensors::load(golden);
  ASSERT_EQ(loaded.size(), 4u);
  for (const auto& [name, t] : tensors) {
    EXPECT_EQ(loaded.at(name).dtype(), t.dtype()) << name;
    EXPECT_TRUE(loaded.at(name).equal(t)) << name;
  }
  EXPECT_EQ(loaded.at("d").dim(), 0);
}

TEST(Safetensors, EveryDtypeRoundTrips) {
  std::map<std::string, Tensor> tensors;
  for (ScalarType t : {kDouble, kFloat, kHalf, kBFloat16, kLong, kInt, kShort, kChar, kByte, kBool}) {
    tensors[scalar_type_name(t)] = arange(12, TensorOptions().dtype(kDouble)).remainder(2 + static_cast<int>(t)).reshape({3, 4}).to(t);
  }
  tensors["empty"] = empty({0, 3});
  tensors["scalar"] = full({}, 3.25);
  const auto loaded = safetensors::load(safetensors::save(tensors));
  ASSERT_EQ(loaded.size(), tensors.size());
  for (const auto& [name, t] : tensors) {
    EXPECT_EQ(loaded.at(name).dtype(), t.dtype()) << name;
    EXPECT_EQ(loaded.at(name).sizes().vec(), t.sizes().vec()) << name;
    EXPECT_TRUE(loaded.at(name).equal(t)) << name;
    if (t.numel() > 0) EXPECT_NE(loaded.at(name).data_ptr(), t.data_ptr());
  }
}

TEST(Safetensors, ViewsAreSavedContiguous) {
  const Tensor base = arange(6, TensorOptions().dtype(kFloat)).reshape({2, 3});
  const Tensor view = base.t();
  ASSERT_FALSE(view.is_contiguous());
  const std::string bytes = safetensors::save({{"v", view}});
  EXPECT_EQ(bytes, safetensors::save({{"v", view.contiguous()}}));
  EXPECT_TRUE(safetensors::load(bytes).at("v").equal(view));
}

TEST(Safetensors, TensorsSharingMemoryAreRefused) {
  const Tensor base = zeros({4});
  EXPECT_THROW(safetensors::save({{"a", base}, {"b", base.narrow(0, 1, 2)}}), SafetensorError);
  try {
    (void)safetensors::save({{"a", base}, {"b", base}});
  } catch (const SafetensorError& e) {
    EXPECT_NE(std::string(e.what()).find("Some tensors share memory"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'a', 'b'"), std::string::npos);
  }
  EXPECT_THROW(safetensors::save({{"__metadata__", zeros({1})}}), SafetensorError);
}

TEST(Safetensors, FilesRoundTrip) {
  const auto path = (std::filesystem::temp_directory_path() / ("ctorch_st_" + std::to_string(::getpid()) + ".safetensors")).string();
  std::map<std::string, Tensor> tensors = {{"w", randn({5, 7})}, {"b", arange(7)}};
  safetensors::save_file(tensors, path, safetensors::Metadata{{"epoch", "3"}});
  const auto loaded = safetensors::load_file(path);
  EXPECT_TRUE(loaded.at("w").equal(tensors["w"]));
  EXPECT_TRUE(loaded.at("b").equal(tensors["b"]));
  std::remove(path.c_str());
  EXPECT_THROW(safetensors::load_file(path), SafetensorError);
  EXPECT_THROW(safetensors::save_file(tensors, "/nonexistent-dir/x.safetensors"), SafetensorError);
}

TEST(Safetensors, MalformedFilesThrowTypedErrors) {
  const std::string ok_header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string padded = ok_header + std::string((8 - ok_header.size() % 8) % 8, ' ');
  const std::string data = raw<float>({1, 2});
  ASSERT_NO_THROW(safetensors::load(file_of(padded, data)));

  expect_error("", "HeaderTooSmall");
  expect_error("\x08\0\0", "HeaderTooSmall");
  expect_error(le64(200'000'000) + "{}", "HeaderTooLarge");
  expect_error(le64(~uint64_t{0}), "HeaderTooLarge");
  expect_error(le64(64) + "{}", "InvalidHeaderLength");
  expect_error(file_of("{\"x\":", ""), "InvalidHeaderDeserialization");
  expect_error(file_of("[1,2,3]", ""), "InvalidHeaderDeserialization");
  expect_error(file_of("\xff\xfe{}", ""), "InvalidHeaderDeserialization");
  auto one = [&](const std::string& entry, const std::string& bytes) { return file_of(R"({"x":)" + entry + "}", bytes); };
  expect_error(one(R"({"dtype":"F8","shape":[2],"data_offsets":[0,8]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"dtype":"C64","shape":[1],"data_offsets":[0,8]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"shape":[2],"data_offsets":[0,8]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"dtype":"F32","shape":[2.0],"data_offsets":[0,8]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"dtype":"F32","shape":[2],"data_offsets":[-8,0]})", data), "InvalidHeaderDeserialization");
  expect_error(one(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})", data), "TensorInvalidInfo");
  expect_error(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,12]})", data), "TensorInvalidInfo");
  expect_error(one(R"({"dtype":"F32","shape":[2],"data_offsets":[4,12]})", data), "InvalidOffset(\"x\")");
  expect_error(one(R"({"dtype":"F32","shape":[2],"data_offsets":[8,0]})", data), "InvalidOffset(\"x\")");
  expect_error(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})", data + "!"), "MetadataIncompleteBuffer");
  expect_error(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})", data), "MetadataIncompleteBuffer");
  expect_error(one(R"({"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,8]})", data), "ValidationOverflow");
  // Overlapping tensors: y starts inside x.
  expect_error(file_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                       data), "InvalidOffset(\"y\")");
  expect_error(file_of(R"({"__metadata__":{"a":1},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data),
               "InvalidHeaderDeserialization");
  expect_error(file_of(R"({"__metadata__":[],"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data),
               "InvalidHeaderDeserialization");
}

TEST(Safetensors, HeaderOrderDoesNotMatterWhenReading) {
  // Older writers ordered by name; offsets decide.
  const std::string header = R"({"a":{"dtype":"I32","shape":[1],"data_offsets":[4,8]},"b":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})";
  const auto loaded = safetensors::load(file_of(header, raw<int32_t>({10, 20})));
  EXPECT_EQ(loaded.at("a").item<int64_t>(), 20);
  EXPECT_EQ(loaded.at("b").item<int64_t>(), 10);
}

TEST(Safetensors, NamesAreEscapedAsJson) {
  const std::string name = "a\"b\\c\n\x01\xc3\xa9";
  const std::string bytes = safetensors::save({{name, zeros({1})}});
  const std::string expected_header = R"({"a\"b\\c\n\u0001)" "\xc3\xa9" R"(":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  EXPECT_EQ(bytes.substr(8, expected_header.size()), expected_header);
  EXPECT_TRUE(safetensors::load(bytes).count(name));
  EXPECT_THROW(safetensors::save({{"\xff", zeros({1})}}), SafetensorError);
}

}  // namespace
}  // namespace ctorch
