// ThreadBackground: ports::Background with one std::thread per call for the ticks, and up to
// `concurrency` threads for forEach.
#pragma once

#include <certsteward/ports/background.hpp>

namespace certsteward::adapters::runtime {

class ThreadBackground : public ports::Background {
 public:
  void whileRunning(domain::Duration every, const std::function<void()>& tick,
                    const std::function<void()>& work) override;
  void forEach(std::size_t count, std::size_t concurrency,
               const std::function<void(std::size_t)>& work) override;
  void pause(domain::Duration d) override;
};

}  // namespace certsteward::adapters::runtime
