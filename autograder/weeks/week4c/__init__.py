"""Week 4c cases: week 4's own cases, run on the allocator written in C++.

The C++ lab keeps week 4's policy and Python API, so its cases are week 4's, registered again
under ``week4c`` with the C++ tasks each needs (measured: ``python -m autograder.authoring
week4c``). Left out are the cases of what stays in Python: checking a settings string (week
4's Task 4.1; ``cpp_allocator.py`` parses well-formed settings only) and the chip questions of
Task 4.5 (expandable segments, first fit). The truth is week 4's: ``PIN_CHECKS`` refuse a pin
in which the C++ reference gives any case another answer than week 4's pinned one.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import autograder.weeks.week4  # noqa: F401 - registers week 4's cases
from autograder.cases import Case, _register, load_week, task_key

W = "week4c"

# Week 4's cases the C++ lab does not take, and why.
LEFT_OUT = {
    "task_4_1_parse_settings": "checks settings strings: week 4's Task 4.1, Python only",
    "task_4_5_chip_variants": "expandable segments: week 4's Task 4.5, Python only",
    "task_4_5_first_fit_against_best_fit": "first fit: week 4's Task 4.5, Python only",
    "task_4_1_small_or_large": "is_small is Python here (the C++ has get_pool, Task 4.7)",
    "task_4_1_each_parse_starts_from_the_defaults": (
        "parses settings into one config twice: week 4's Task 4.1, Python only"
    ),
    "task_4_1_gc_threshold_is_strictly_between_0_and_1": (
        "checks settings strings: week 4's Task 4.1, Python only"
    ),
    "task_4_3_the_miss_path_frees_the_smallest_oversize_block": (
        "needs first fit: week 4's Task 4.5, Python only"
    ),
    "task_4_3_format_size_boundaries": "format_size is given in the C++ lab: no task writes it",
    "task_4_5_expandable_segments_map_and_unmap_pages": (
        "expandable segments: week 4's Task 4.5, Python only"
    ),
    "task_4_1_a_bad_setting_is_a_value_error": (
        "checks settings strings: week 4's Task 4.1, Python only"
    ),
    "task_4_5_expandable_segments_count_no_inactive_split": (
        "expandable segments: week 4's Task 4.5, Python only"
    ),
    "task_4_5_a_fully_unmapped_expandable_segment_is_released": (
        "expandable segments: week 4's Task 4.5, Python only"
    ),
}

# The C++ tasks each case needs, measured by blanking one task at a time.
TASKS: dict[str, tuple[str, ...]] = {
    "task_4_1_round_size": ("4.6",),
    "task_4_1_round_size_power2_divisions": ("4.6",),
    "task_4_1_segment_sizes": ("4.6",),
    "task_4_1_divisions_after_the_last_range": ("4.6",),
    "random_round_sizes": ("4.6",),
    "task_4_2_first_small_request": ("4.6", "4.7"),
    "task_4_2_small_requests_share_a_segment": ("4.6", "4.7"),
    "task_4_2_best_fit": ("4.6", "4.7"),
    "task_4_2_free_merges_neighbours": ("4.6", "4.7"),
    "task_4_2_large_split_rule": ("4.6", "4.7"),
    "task_4_2_streams_do_not_share": ("4.6", "4.7"),
    "task_4_2_max_split_size": ("4.6", "4.7"),
    "task_4_2_remainders_are_reused": ("4.6", "4.7"),
    "task_4_2_oversize_waste_limit": ("4.6", "4.7"),
    "task_4_2_a_block_of_exactly_max_split_size_is_oversize": ("4.6", "4.7"),
    "task_4_2_the_waste_limit_is_max_non_split_rounding": ("4.6", "4.7"),
    "task_4_3_empty_cache_returns_free_segments": ("4.6", "4.7", "4.8"),
    "task_4_3_out_of_memory_frees_the_cache_and_retries": ("4.6", "4.7", "4.8"),
    "task_4_3_out_of_memory_error": ("4.6", "4.7", "4.8"),
    "task_4_3_memory_fraction": ("4.6", "4.7", "4.8"),
    "task_4_3_oversize_blocks_go_first": ("4.6", "4.7", "4.8"),
    "task_4_3_garbage_collection_threshold": ("4.6", "4.7", "4.8"),
    "task_4_3_empty_cache_keeps_split_segments": ("4.6", "4.7", "4.8"),
    "task_4_3_a_miss_frees_only_what_it_needs_first": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_out_of_memory_message_figures": ("4.6", "4.7", "4.8"),
    "task_4_3_empty_cache_keeps_a_segment_whose_first_block_is_free": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_releasing_an_oversize_segment": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_garbage_collection_frees_the_old_blocks": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_memory_fraction_range": ("4.6", "4.7", "4.8"),
    "task_4_4_stat_names": ("4.9",),
    "task_4_4_stats_after_a_sequence": ("4.6", "4.7", "4.9"),
    "task_4_4_inactive_split": ("4.6", "4.7", "4.9"),
    "task_4_4_peaks_and_resets": ("4.6", "4.7", "4.9"),
    "task_4_4_requested_bytes": ("4.6", "4.7", "4.9"),
    "task_4_2_snapshot_format": ("4.6", "4.7"),
    "task_4_4_max_split_size_is_read_once": ("4.6", "4.7", "4.9"),
    "task_4_4_resets_cover_the_oversize_stats": ("4.6", "4.7", "4.9"),
    "h100_transformer_adamw": ("4.6", "4.7", "4.9"),
    "h100_resnet18_sgd": ("4.6", "4.7", "4.9"),
    "hidden_h100_mlp_big_adam_varying_batch": ("4.6", "4.7", "4.9"),
    "random_programs_keep_the_invariants": ("4.6", "4.7", "4.9"),
    "task_4_5_replay_traces": ("4.6", "4.7", "4.9"),
    "task_4_5_caching_saves_driver_calls": ("4.6", "4.7", "4.9"),
    "random_traces_replayed": ("4.6", "4.7", "4.9"),
    "task_4_5_replay_rules": ("4.6", "4.7", "4.9"),
    "ported_test_memory_allocation": ("4.6", "4.7", "4.9"),
    "ported_test_memory_stats": ("4.6", "4.7", "4.8", "4.9"),
    "ported_test_out_of_memory": ("4.6", "4.7", "4.8", "4.9"),
    "ported_test_set_per_process_memory_fraction": ("4.6", "4.7", "4.8", "4.9"),
    "ported_test_allocator_settings": ("4.6", "4.7", "4.8", "4.9"),
    "ported_test_raw_alloc": ("4.6", "4.7", "4.8", "4.9"),
    "ported_test_raises_oom_default": ("4.6", "4.7", "4.8"),
    "ported_test_raises_oom_max_split_size": ("4.6", "4.7", "4.8"),
    "ported_test_memory_snapshot": ("4.6", "4.7", "4.8", "4.9"),
    "ported_test_multigpu_memory_stats": ("4.6", "4.7", "4.8", "4.9"),
    "hidden_random_programs_with_max_split_size": ("4.6", "4.7", "4.9"),
    "hidden_random_programs_with_divisions": ("4.6", "4.7", "4.9"),
    "hidden_random_programs_on_a_small_device": ("4.6", "4.7", "4.9"),
    "hidden_variants_on_the_wide_trace_twice": ("4.6", "4.7", "4.9"),
    "task_4_1_a_size_on_a_division_step_stays": ("4.6",),
    "task_4_2_a_32_byte_chip_rounds_to_32_bytes": ("4.6", "4.7"),
    "task_4_2_a_waste_of_exactly_max_non_split_rounding_is_refused": ("4.6", "4.7"),
    "task_4_2_freeing_a_block_twice_is_a_runtime_error": ("4.6", "4.7"),
    "task_4_4_an_oversize_allocation_is_judged_by_its_block": ("4.6", "4.7", "4.9"),
    "task_4_3_a_segment_may_reach_the_memory_fraction_exactly": ("4.6", "4.7", "4.8"),
    "task_4_3_out_of_memory_errors_are_counted": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_the_oversize_walk_frees_blocks_of_exactly_max_split_size": (
        "4.6",
        "4.7",
        "4.8",
        "4.9",
    ),
    "task_4_3_the_oversize_release_keeps_to_the_request_stream": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_each_pool_keeps_its_own_garbage_collection_clock": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_garbage_collection_repeats_until_enough_is_freed": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_1_sizes_below_1_mib_use_the_first_interval": ("4.6",),
    "task_4_2_the_split_rule_reads_the_rounded_size": ("4.6", "4.7"),
    "task_4_3_a_retry_the_memory_fraction_refuses_still_counts": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_3_the_oversize_walk_stops_at_a_block_below_max_split_size": (
        "4.6",
        "4.7",
        "4.8",
        "4.9",
    ),
    "task_4_3_garbage_collection_leaves_split_blocks": ("4.6", "4.7", "4.8", "4.9"),
    "task_4_4_memory_stats_keys_come_sorted": ("4.6", "4.7", "4.9"),
}


# week 4c's name of a case -> week 4's (the pinned truth must be the same for both).
ORIGIN: dict[str, str] = {}


def week4c_name(name: str, tasks: tuple[str, ...]) -> str:
    """Named after the task that completes it here: task_4_2_best_fit -> task_4_7_best_fit."""
    last = max(tasks, key=task_key).replace(".", "_")
    return re.sub(r"^task_4_\d+_", f"task_{last}_", name)


def register_from(cases: list[Case]) -> None:
    """Week 4's ``cases``, registered again for week 4c with the tasks they need here."""
    for c in cases:
        if c.name in LEFT_OUT:
            continue
        tasks = TASKS[c.name]
        name = week4c_name(c.name, tasks)
        ORIGIN[name] = c.name
        _register(dataclasses.replace(c, week=W, name=name, tasks=tasks))


register_from(load_week("week4", include_hidden=False))


def same_answers_as_week4(pinned: dict[str, Any]) -> list[str]:
    """Every case's answer from the C++ reference is week 4's pinned one (the Python
    reference's, which reproduces PyTorch's own allocator tests)."""
    from autograder import pinning

    week4 = pinning.load("week4")
    return [
        f"{cid}: the C++ reference's answer differs from week 4's pinned answer"
        for cid, got in pinned.items()
        if got["expected"] != week4["week4::" + ORIGIN[cid.split("::", 1)[1]]]["expected"]
    ]


PIN_CHECKS = [same_answers_as_week4]
