// ObjectId-layout id generation.
#include <certsteward/adapters/crypto/object_id_generator.hpp>

#include <openssl/rand.h>

#include <stdexcept>

namespace certsteward::adapters::crypto {

ObjectIdGenerator::ObjectIdGenerator(const ports::Clock& clock) : clock_(clock) {
  std::array<std::uint8_t, 8> seed{};
  if (RAND_bytes(seed.data(), static_cast<int>(seed.size())) != 1) {
    throw std::runtime_error("no randomness available for id generation");
  }
  std::copy(seed.begin(), seed.begin() + 5, random_.begin());
  counter_ = static_cast<std::uint32_t>(seed[5]) << 16 | static_cast<std::uint32_t>(seed[6]) << 8 |
             seed[7];
}

domain::Id ObjectIdGenerator::next() {
  return domain::makeObjectId(clock_.now(), random_, counter_.fetch_add(1));
}

}  // namespace certsteward::adapters::crypto
