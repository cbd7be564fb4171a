// ThreadBackground: ports::Background with one std::thread per call for the ticks.
#pragma once

#include "ports/background.hpp"

namespace certsteward::adapters::runtime {

class ThreadBackground : public ports::Background {
 public:
  void whileRunning(domain::Duration every, const std::function<void()>& tick,
                    const std::function<void()>& work) override;
  void pause(domain::Duration d) override;
};

}  // namespace certsteward::adapters::runtime
