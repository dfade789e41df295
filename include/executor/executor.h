// Copyright ferry authors.
//
// Everything of ferry's executor: process_pool, future and its composition
// (then, when_all, when_any, co_await), pool_options,
// get_reusable_executor, start_method, cpu_count, serve_if_worker, and the
// serialization layer it builds on.
#ifndef FERRY_EXECUTOR_EXECUTOR_H_
#define FERRY_EXECUTOR_EXECUTOR_H_

#include "executor/actor.h"
#include "executor/compose.h"
#include "executor/cpu_count.h"
#include "executor/errors.h"
#include "executor/future.h"
#include "executor/nested_pool.h"
#include "executor/pool_options.h"
#include "executor/process_pool.h"
#include "executor/reusable_executor.h"
#include "executor/start_method.h"
#include "executor/task_options.h"
#include "executor/this_task.h"
#include "executor/worker.h"
#include "serialize/serialize.h"

#endif  // FERRY_EXECUTOR_EXECUTOR_H_
