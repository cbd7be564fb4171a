// The Random contract suite (testing/contract) against the shared fake and OpenSSL's generator;
// then what only the adapter shows: an exhausted source ends the process with a message, since
// the port never fails.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include <certsteward/adapters/crypto/openssl_random.hpp>
#include <certsteward/testing/fakes.hpp>

namespace {

using namespace certsteward;

struct FakeRandomHarness {
  testing::FakeRandom fake;
  ports::Random& random() { return fake; }
};

struct OpenSslRandomHarness {
  adapters::crypto::OpenSslRandom openssl;
  ports::Random& random() { return openssl; }
};

}  // namespace

#define CERTSTEWARD_RANDOM_HARNESSES FakeRandomHarness, OpenSslRandomHarness
#include <certsteward/testing/contract/random_contract.hpp>

TEST_CASE("openssl random: an exhausted source ends the process with a message, never weak bytes") {
  int pipeFds[2];
  REQUIRE(::pipe(pipeFds) == 0);
  std::fflush(nullptr);  // or the child writes the parent's pending output again
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(pipeFds[1], STDERR_FILENO);
    ::close(pipeFds[0]);
    adapters::crypto::OpenSslRandom exhausted([](unsigned char*, int) { return 0; });
    (void)exhausted.bytes(16);
    ::_exit(0);  // reached only if bytes() answered
  }
  ::close(pipeFds[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; (n = ::read(pipeFds[0], buf, sizeof buf)) > 0;)
    said.append(buf, static_cast<std::size_t>(n));
  ::close(pipeFds[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  CHECK(said.find("random generator failed") != std::string::npos);
}
