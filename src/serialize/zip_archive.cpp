// PyTorch's checkpoint container (serialize/zip_archive.h). Little-endian zip structures, as in
// PKWARE's APPNOTE: local header (30 bytes + name + extra), data, central directory entries
// (46 bytes + name + extra + comment), end of central directory (22 bytes + comment).
// Archives of 4 GiB or more (zip64) are refused on both sides.
#include "serialize/zip_archive.h"

#include <zlib.h>

#include <cstring>
#include <limits>

#include "ctorch/serialization.h"

namespace ctorch::serialization::detail {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr size_t kLocalSize = 30;
constexpr size_t kCentralSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kAlignment = 64;  // PyTorchStreamWriter's kFieldAlignment

void put16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}
void put32(std::string& out, uint32_t v) {
  put16(out, static_cast<uint16_t>(v & 0xffff));
  put16(out, static_cast<uint16_t>(v >> 16));
}
uint16_t get16(std::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}
uint32_t get32(std::string_view b, size_t at) { return get16(b, at) | static_cast<uint32_t>(get16(b, at + 2)) << 16; }

uint32_t crc_of(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = reinterpret_cast<const Bytef*>(data.data());
  size_t left = data.size();
  while (left > 0) {  // zlib's length is a uInt
    const uInt n = static_cast<uInt>(std::min<size_t>(left, std::numeric_limits<uInt>::max()));
    crc = crc32(crc, p, n);
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(crc);
}

[[noreturn]] void fail(const std::string& what) {
  throw CheckpointError("PytorchStreamReader failed reading zip archive: " + what);
}

}  // namespace

bool is_zip(std::string_view bytes) { return bytes.size() >= 4 && get32(bytes, 0) == kLocalSig; }

void ZipWriter::add(std::string_view name, std::string_view data) {
  const std::string full = archive_name_ + "/" + std::string(name);
  // Padding so the data starts on a 64-byte boundary: "FB", its length, then 'Z's.
  const size_t header_end = out_.size() + kLocalSize + full.size() + 4;
  const size_t pad = (kAlignment - header_end % kAlignment) % kAlignment;
  const uint64_t end = header_end + pad + data.size();
  CTORCH_CHECK_NOT_IMPLEMENTED(end < 0xffffffffULL,
                     "torch.save: checkpoints of 4 GiB or more (zip64 archives) are not supported yet");
  Entry e{full, crc_of(data), data.size(), out_.size()};
  put32(out_, kLocalSig);
  put16(out_, 20);  // version needed to extract: 2.0
  put16(out_, 0);   // flags
  put16(out_, 0);   // stored
  put16(out_, 0);   // time
  put16(out_, 0);   // date
  put32(out_, e.crc);
  put32(out_, static_cast<uint32_t>(data.size()));
  put32(out_, static_cast<uint32_t>(data.size()));
  put16(out_, static_cast<uint16_t>(full.size()));
  put16(out_, static_cast<uint16_t>(4 + pad));
  out_ += full;
  out_ += "FB";
  put16(out_, static_cast<uint16_t>(pad));
  out_.append(pad, 'Z');
  out_.append(data);
  entries_.push_back(std::move(e));
}

std::string ZipWriter::finish() {
  const size_t dir_start = out_.size();
  for (const Entry& e : entries_) {
    put32(out_, kCentralSig);
    put16(out_, 20);  // version made by
    put16(out_, 20);  // version needed
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, 0);
    put16(out_, 0);
    put32(out_, e.crc);
    put32(out_, static_cast<uint32_t>(e.size));
    put32(out_, static_cast<uint32_t>(e.size));
    put16(out_, static_cast<uint16_t>(e.name.size()));
    put16(out_, 0);  // extra
    put16(out_, 0);  // comment
    put16(out_, 0);  // disk
    put16(out_, 0);  // internal attributes
    put32(out_, 0);  // external attributes
    put32(out_, static_cast<uint32_t>(e.offset));
    out_ += e.name;
  }
  const size_t dir_size = out_.size() - dir_start;
  CTORCH_CHECK_NOT_IMPLEMENTED(out_.size() < 0xffffffffULL && entries_.size() < 0xffff,
                     "torch.save: checkpoints of 4 GiB or 65535 records or more (zip64 archives) are not supported yet");
  put32(out_, kEndSig);
  put16(out_, 0);
  put16(out_, 0);
  put16(out_, static_cast<uint16_t>(entries_.size()));
  put16(out_, static_cast<uint16_t>(entries_.size()));
  put32(out_, static_cast<uint32_t>(dir_size));
  put32(out_, static_cast<uint32_t>(dir_start));
  put16(out_, 0);
  entries_.clear();
  return std::move(out_);
}

ZipReader::ZipReader(std::string_view b) {
  // The end record: its signature within the last 22 + 65535 bytes (the comment's maximum).
  if (b.size() < kEndSize) fail("failed finding central directory");
  size_t end = std::string_view::npos;
  const size_t lowest = b.size() > kEndSize + 0xffff ? b.size() - kEndSize - 0xffff : 0;
  for (size_t at = b.size() - kEndSize + 1; at-- > lowest;) {
    if (get32(b, at) == kEndSig && at + kEndSize + get16(b, at + 20) == b.size()) {
      end = at;
      break;
    }
  }
  if (end == std::string_view::npos) fail("failed finding central directory");
  const uint16_t count = get16(b, end + 10);
  const uint32_t dir_size = get32(b, end + 12);
  const uint32_t dir_start = get32(b, end + 16);
  if (get16(b, end + 4) != 0 || get16(b, end + 6) != 0 || get16(b, end + 8) != count) {
    fail("multi-disk archives are not supported");
  }
  if (dir_start == 0xffffffffu || count == 0xffff) fail("zip64 archives (4 GiB or more) are not supported yet");
  if (static_cast<uint64_t>(dir_start) + dir_size > end) fail("central directory out of bounds");
  size_t at = dir_start;
  for (uint16_t i = 0; i < count; ++i) {
    if (at + kCentralSize > static_cast<size_t>(dir_start) + dir_size || get32(b, at) != kCentralSig) {
      fail("invalid central directory entry");
    }
    const uint16_t flags = get16(b, at + 8);
    const uint16_t method = get16(b, at + 10);
    const uint32_t crc = get32(b, at + 16);
    const uint32_t csize = get32(b, at + 20);
    const uint32_t usize = get32(b, at + 24);
    const size_t name_len = get16(b, at + 28);
    const size_t entry_size = kCentralSize + name_len + get16(b, at + 30) + get16(b, at + 32);
    const uint32_t offset = get32(b, at + 42);
    if (at + entry_size > static_cast<size_t>(dir_start) + dir_size) fail("invalid central directory entry");
    std::string name(b.substr(at + kCentralSize, name_len));
    at += entry_size;
    if (flags & 1) fail("encrypted record " + name);
    if (method != 0 || csize != usize) fail("record " + name + " is compressed (PyTorch stores records uncompressed)");
    if (static_cast<uint64_t>(offset) + kLocalSize > dir_start || get32(b, offset) != kLocalSig) {
      fail("invalid header for record " + name);
    }
    const uint64_t data_start = static_cast<uint64_t>(offset) + kLocalSize + get16(b, offset + 26) + get16(b, offset + 28);
    if (data_start + usize > dir_start) fail("record " + name + " out of bounds");
    std::string_view data = b.substr(data_start, usize);
    if (crc_of(data) != crc) fail("CRC mismatch in record " + name);
    const size_t slash = name.find('/');
    if (slash == std::string::npos) fail("record " + name + " is outside the archive's folder");
    if (records_.empty()) archive_name_ = name.substr(0, slash);
    if (!records_.emplace(std::move(name), data).second) fail("a record name appears twice");
  }
  if (records_.empty()) fail("the archive is empty");
}

bool ZipReader::has_record(std::string_view name) const {
  return records_.count(archive_name_ + "/" + std::string(name)) != 0;
}

std::string_view ZipReader::record(std::string_view name) const {
  if (auto it = records_.find(archive_name_ + "/" + std::string(name)); it != records_.end()) return it->second;
  throw CheckpointError("PytorchStreamReader failed locating file " + std::string(name) + ": file not found");
}

}  // namespace ctorch::serialization::detail
