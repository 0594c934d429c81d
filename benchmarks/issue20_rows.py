"""Issue 20's 44 mutation survivors: each as the text it replaces in today's code, and its test.

Read by issue20_survivors.py, which applies each one and runs its test. The numbering is the
issue's: "1" to "10", then "11.a" onwards for the list in its item 11 ("11.d1" and "11.d2" where one
item names two behaviours).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Survivor:
    number: str  # the issue's numbering: "1" to "10", then "11.a" onwards for item 11's list
    what: str
    path: str
    old: str  # occurs exactly once in the file
    new: str
    test: str  # node id


SURVIVORS: tuple[Survivor, ...] = (
    Survivor(
        "1",
        "a flat read opens a symlink (no O_NOFOLLOW), so it serves a file outside the tier",
        "biopb_kernel_docs/core/store.py",
        "return (path, *read_regular(path, NO_FOLLOW))",
        "return (path, *read_regular(path))",
        "tests/test_store.py::test_a_flat_read_through_a_symlink_out_of_the_tier_is_refused",
    ),
    Survivor(
        "2",
        "no re-check under the lock: a refresh after another process's recomputes against the new manifest "
        "and erases the changed set",
        "biopb_kernel_docs/core/manifest.py",
        "            manifest = _load(store)  # another process may have refreshed it while we waited\n"
        "            if manifest is not None and manifest.version == store.shipped_version:\n"
        "                return manifest.changed\n",
        "            manifest = _load(store)  # another process may have refreshed it while we waited\n",
        "tests/test_manifest.py::test_two_processes_refreshing_after_an_upgrade_keep_the_changed_set",
    ),
    Survivor(
        "3",
        "the notify re-read of the index after a write runs as the agent's session, so it counts as the "
        "agent's read",
        "biopb_kernel_docs/surfaces/mcp_server.py",
        'view = await self.kernel.call("index", as_session=self.watch_session)\n'
        "        except DocsError:\n"
        "            return",
        'view = await self.kernel.call("index")\n        except DocsError:\n            return',
        "tests/test_mcp_server.py::"
        "test_the_servers_own_index_reads_never_count_as_the_agent_reading_the_index",
    ),
    Survivor(
        "4",
        "a failed start is remembered: every later call re-raises it, never starting again",
        "biopb_kernel_docs/bridge/client.py",
        "            self._started = None  # the next call starts again\n",
        "",
        "tests/test_bridge_client.py::test_a_failed_attach_is_forgotten_and_the_next_call_attaches",
    ),
    Survivor(
        "5",
        "every REST user is one caller, so one user's read vouches for another's body save",
        "biopb_kernel_docs/surfaces/handlers.py",
        "docs = self.docs_service.docs_for(user.username, user.name)",
        'docs = self.docs_service.docs_for("panel", user.name)',
        "tests/test_handlers.py::test_one_users_read_never_vouches_for_another_users_body_save",
    ),
    Survivor(
        "6",
        "config files applied highest first, so a system-wide file beats the user's",
        "biopb_kernel_docs/surfaces/settings.py",
        "for path in reversed(files):",
        "for path in files:",
        "tests/test_config.py::test_the_users_config_file_wins_over_a_system_wide_one",
    ),
    Survivor(
        "7",
        "a write interrupted by a kernel death is resent to the new kernel, as a read is",
        "biopb_kernel_docs/bridge/client.py",
        "if attempt == 2 or writes or (self.attached and isinstance(err, KernelDied)):",
        "if attempt == 2 or (self.attached and isinstance(err, KernelDied)):",
        "tests/test_bridge_client.py::test_a_write_in_flight_when_the_kernel_dies_errors_and_is_never_resent",
    ),
    Survivor(
        "8",
        "the lock is taken with a blocking flock: a wait on a stuck holder never times out",
        "biopb_kernel_docs/core/lock.py",
        "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)",
        "fcntl.flock(fd, fcntl.LOCK_EX)",
        "tests/test_lock.py::test_a_write_held_up_by_another_process_gives_up_with_its_message",
    ),
    Survivor(
        "9",
        "with ignored_as_count, only the first ignored: line is replaced: the second line's ids are shown",
        "biopb_kernel_docs/text/render.py",
        "        lines = [line for number, line in enumerate(lines) if number not in others]\n",
        "",
        "tests/test_render.py::test_two_ignored_lines_are_counted_as_one_and_neither_lines_ids_are_shown",
    ),
    Survivor(
        "10",
        "a receive returns the first reply that arrives, not the one to its request",
        "biopb_kernel_docs/bridge/channel.py",
        '            if message["parent_header"].get("msg_id") == msg_id:\n'
        '                return message["content"].get("answer")\n',
        '            return message["content"].get("answer")\n',
        "tests/test_bridge.py::test_a_late_reply_never_answers_the_next_call",
    ),
    Survivor(
        "11.a",
        "a call waits its whole timeout in one receive: a dead kernel is noticed at 30 s, not within ~1 s",
        "biopb_kernel_docs/bridge/client.py",
        "return await receive(min(remaining, LIVENESS_CHECK_SECONDS))",
        "return await receive(remaining)",
        "tests/test_bridge_client.py::"
        "test_a_kernel_that_dies_during_a_call_is_noticed_within_seconds_not_at_the_timeout",
    ),
    Survivor(
        "11.b",
        "the handshake's index call has no 5 s deadline: initialize waits on a busy kernel for the call "
        "timeout",
        "biopb_kernel_docs/surfaces/mcp_server.py",
        "            return await asyncio.wait_for(\n"
        '                self.kernel.call("index", as_session=self.watch_session), HANDSHAKE_SECONDS\n'
        "            )\n",
        '            return await self.kernel.call("index", as_session=self.watch_session)\n',
        "tests/test_mcp_server.py::"
        "test_initialize_against_a_busy_kernel_is_answered_within_the_handshake_deadline",
    ),
    Survivor(
        "11.c",
        "no liveness check before a call: a dead owned kernel is restarted only by a read's retry, so a "
        "write fails",
        "biopb_kernel_docs/bridge/client.py",
        "            if not self.attached and not await self._alive():\n"
        "                await self._restart_owned()\n",
        "",
        "tests/test_bridge_client.py::test_the_owned_kernel_is_restarted_before_a_write_not_only_a_read",
    ),
    Survivor(
        "11.d1",
        "file_doc and ignore_doc skip the index's if_match check",
        "biopb_kernel_docs/core/index_edits.py",
        "            self._check_precondition(INDEX_ID, index, if_match, implicit=False)  # type: "
        "ignore[attr-defined]\n",
        "",
        "tests/test_ops.py::test_file_doc_and_ignore_doc_refuse_a_stale_if_match_and_change_nothing",
    ),
    Survivor(
        "11.d2",
        "file_doc and ignore_doc skip the entry cap",
        "biopb_kernel_docs/core/index_edits.py",
        "            check_entry_cap(len(parsed.entries), len(parse_index(after).entries))\n",
        "",
        "tests/test_ops.py::test_file_doc_refuses_entry_201_and_ignore_doc_still_works_at_the_cap",
    ),
    Survivor(
        "11.e1",
        "over the cap, only a same-count write passes: removing one entry is refused",
        "biopb_kernel_docs/core/index.py",
        "count_after <= count_before)",
        "count_after == count_before)",
        "tests/test_index.py::"
        "test_an_index_over_the_cap_can_shrink_one_entry_at_a_time_and_take_a_same_count_edit",
    ),
    Survivor(
        "11.e2",
        "over the cap, a same-count edit is refused (only a shrink passes)",
        "biopb_kernel_docs/core/index.py",
        "count_after <= count_before)",
        "count_after < count_before)",
        "tests/test_index.py::"
        "test_an_index_over_the_cap_can_shrink_one_entry_at_a_time_and_take_a_same_count_edit",
    ),
    Survivor(
        "11.f",
        "a caller's own write leaves its remembered sha at the text before, so its next body write is "
        "refused as stale",
        "biopb_kernel_docs/core/ops.py",
        "        if body is not None or self._served.get(doc_id) == (base.sha256 if base else None):\n"
        "            self._served[doc_id] = written.sha256\n",
        "",
        "tests/test_ops.py::test_a_callers_own_writes_keep_what_it_remembers_current",
    ),
    Survivor(
        "11.g",
        "the channel polls with its timeout in seconds where zmq takes milliseconds (10 s becomes 10 ms)",
        "biopb_kernel_docs/bridge/channel.py",
        "await self._socket.poll(remaining * 1000)",
        "await self._socket.poll(remaining)",
        "tests/test_bridge.py::test_a_receive_waits_its_timeout_in_seconds",
    ),
    Survivor(
        "11.h",
        "ignored: ids split on commas only, so 'alpha beta' is one (invalid) token",
        "biopb_kernel_docs/core/index.py",
        'for token in re.split(r"[\\s,]+", line[len(IGNORED_PREFIX) :]):',
        'for token in re.split(r"\\s*,\\s*", line[len(IGNORED_PREFIX) :]):',
        "tests/test_index.py::test_ignored_ids_may_be_separated_by_spaces_commas_or_both",
    ),
    Survivor(
        "11.i",
        "the temp sweep deletes any *.part file, not only the store's .tmp-*.part",
        "biopb_kernel_docs/core/store.py",
        "if entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX):",
        "if entry.name.endswith(TEMP_SUFFIX):",
        "tests/test_store.py::test_the_temp_sweep_never_deletes_a_users_part_file",
    ),
    Survivor(
        "11.j",
        "the index text leaves out the loader's notices (the read-only fallback notice)",
        "biopb_kernel_docs/text/render.py",
        '    lines = [*view.notices, *([""] if view.notices else []), *lines]\n',
        "",
        "tests/test_render.py::test_the_agents_index_text_says_when_the_index_is_the_read_only_shipped_one",
    ),
    Survivor(
        "11.k",
        "an unwritable local tier reports no changed shipped docs (empty stale tail)",
        "biopb_kernel_docs/core/manifest.py",
        "    except StoreUnavailable:\n        return _changes(manifest, shipped_hashes(store))",
        "    except StoreUnavailable:\n        return frozenset()",
        "tests/test_manifest.py::test_an_unwritable_local_tier_still_gets_the_stale_tail",
    ),
    Survivor(
        "11.l",
        "a revert quotes the changed lines without checking they occur once (no context added)",
        "biopb_kernel_docs/core/review.py",
        "if first != -1 and text.find(old, first + 1) == -1:",
        "if first != -1:",
        "tests/test_review.py::test_reverting_a_hunk_whose_lines_repeat_elsewhere_puts_back_that_hunk_only",
    ),
    Survivor(
        "11.m",
        "a rewrite's temp file is not chmod-ed to the old mode, so the umask narrows it",
        "biopb_kernel_docs/core/files.py",
        "os.fchmod(fd, mode)  # the umask may have narrowed it",
        "pass  # the umask may have narrowed it",
        "tests/test_store.py::test_a_rewrite_keeps_the_file_mode_under_a_restrictive_umask",
    ),
    Survivor(
        "11.n",
        "no fsync of the directory after the rename",
        "biopb_kernel_docs/core/files.py",
        "        raise\n    fsync_directory(directory)\n",
        "        raise\n",
        "tests/test_store.py::test_atomic_write_syncs_the_directory_after_the_rename",
    ),
    Survivor(
        "11.o",
        "PUT /docs/<id> without @authorized: a denying Authorizer does not stop it",
        "biopb_kernel_docs/surfaces/handlers.py",
        "    @tornado.web.authenticated\n    @authorized\n    def put(self, doc_id: str) -> None:",
        "    @tornado.web.authenticated\n    def put(self, doc_id: str) -> None:",
        "tests/test_handlers.py::test_writes_are_refused_by_an_authorizer_that_denies_them",
    ),
    Survivor(
        "11.p",
        "a flat id whose x.md is any non-link entry (a directory too) exists",
        "biopb_kernel_docs/core/store.py",
        "            if not stat.S_ISLNK(mode):\n                return stat.S_ISREG(mode)",
        "            if not stat.S_ISLNK(mode):\n                return True",
        "tests/test_store.py::test_a_directory_named_like_a_doc_is_not_a_doc",
    ),
    Survivor(
        "11.q",
        "frontmatter capped at 6 lines, not 60: 7-60 line frontmatter read as body",
        "biopb_kernel_docs/core/frontmatter.py",
        "_MAX_FRONTMATTER_LINES = 60",
        "_MAX_FRONTMATTER_LINES = 6",
        "tests/test_frontmatter.py::test_frontmatter_of_up_to_sixty_lines_is_parsed_and_longer_is_body",
    ),
    Survivor(
        "11.r",
        "any fence of 3+ backticks closes a code block, even one opened by 4",
        "biopb_kernel_docs/core/frontmatter.py",
        "line.strip().startswith(fence[0] * len(fence))",
        "line.strip().startswith(fence[0] * 3)",
        "tests/test_frontmatter.py::test_a_shorter_fence_does_not_close_a_longer_one",
    ),
    Survivor(
        "11.s",
        "a REST write does not push the change; the panel waits for the next poll",
        "biopb_kernel_docs/surfaces/handlers.py",
        "            self.docs_service.changed()\n",
        "            pass\n",
        "tests/test_handlers.py::test_a_write_through_the_api_is_pushed_at_once",
    ),
    Survivor(
        "11.t",
        "the MCP tools offer every parameter, if_match (a sha) included",
        "biopb_kernel_docs/surfaces/mcp_server.py",
        'return tuple(p.name for p in op.parameters if p.kind != "sha")',
        "return tuple(p.name for p in op.parameters)",
        "tests/test_mcp_server.py::test_the_tools_schema_offers_no_if_match",
    ),
    Survivor(
        "11.u",
        "a re-seed files back while entries <= 200 (>= -> >): 201 entries",
        "biopb_kernel_docs/core/seeding.py",
        "len(parsed.entries) >= ENTRY_CAP",
        "len(parsed.entries) > ENTRY_CAP",
        "tests/test_seeding.py::test_a_reseeded_index_files_local_docs_back_up_to_exactly_the_cap",
    ),
    Survivor(
        "11.v",
        "line_count counts newlines only: an unterminated 301st line slips past the 300 cap",
        "biopb_kernel_docs/core/edits.py",
        'return text.count("\\n") + (1 if text and not text.endswith("\\n") else 0)',
        'return text.count("\\n")',
        "tests/test_edits.py::test_an_old_new_edit_leaving_301_lines_and_no_final_newline_is_refused",
    ),
    Survivor(
        "11.w",
        "hunk index == count accepted (< -> <=): an IndexError, not a 400",
        "biopb_kernel_docs/core/review.py",
        "0 <= hunk < count:",
        "0 <= hunk <= count:",
        "tests/test_review.py::test_a_hunk_number_outside_the_hunks_shown_is_a_400_and_changes_nothing[1]",
    ),
    Survivor(
        "11.x",
        "a --replace cell with two '=======' lines is split at the first",
        "biopb_kernel_docs/surfaces/magics.py",
        "    if len(separators) != 1:",
        "    if not separators:",
        "tests/test_magics.py::test_a_replace_cell_with_two_separator_lines_is_refused_and_says_why",
    ),
    Survivor(
        "11.y",
        "frontmatter lines stripped before matching and the indentation guard dropped: indented keys read",
        "biopb_kernel_docs/core/frontmatter.py",
        "        match = _KEY_VALUE.fullmatch(line.rstrip())\n"
        '        if match and not line.startswith((" ", "\\t", "#")):',
        "        match = _KEY_VALUE.fullmatch(line.strip())\n        if match:",
        "tests/test_frontmatter.py::test_indented_frontmatter_keys_are_ignored",
    ),
    Survivor(
        "11.z",
        "claude-code's budget 2047, not its documented 2048",
        "biopb_kernel_docs/text/handshake.py",
        'KNOWN_HOST_BUDGETS = {"claude-code": 2048}',
        'KNOWN_HOST_BUDGETS = {"claude-code": 2047}',
        "tests/test_handshake.py::test_claude_codes_budget_is_its_documented_2048_characters",
    ),
    Survivor(
        "11.aa",
        "an id of exactly 200 characters refused (> -> >=)",
        "biopb_kernel_docs/core/ids.py",
        "    if len(doc_id) > MAX_ID_LENGTH:",
        "    if len(doc_id) >= MAX_ID_LENGTH:",
        "tests/test_ids.py::test_an_id_of_200_characters_is_valid_and_201_is_not",
    ),
    Survivor(
        "11.bb",
        "the '.md' suffix refused in lower case only: 'notes.MD' is an id",
        "biopb_kernel_docs/core/ids.py",
        "    if doc_id.lower().endswith(DOC_SUFFIX):",
        "    if doc_id.endswith(DOC_SUFFIX):",
        "tests/test_ids.py::test_an_md_suffix_in_any_case_is_refused",
    ),
    Survivor(
        "11.cc",
        "the listed-docs fingerprint watches the listed ids only, not shipped ids a local copy may shadow",
        "biopb_kernel_docs/core/store.py",
        "watched = sorted({*local_ids, *self.all_shipped_ids()})",
        "watched = sorted(set(local_ids))",
        "tests/test_store.py::test_a_fingerprint_of_the_listed_docs_sees_a_nested_local_copy_appear",
    ),
    Survivor(
        "11.dd",
        "the fingerprint's stat summary leaves out the size (mtime and inode only)",
        "biopb_kernel_docs/core/store.py",
        "    return (path, status.st_mtime_ns, status.st_size, status.st_ino)",
        "    return (path, status.st_mtime_ns, 0, status.st_ino)",
        "tests/test_store.py::test_a_fingerprint_sees_an_in_place_edit_that_keeps_the_mtime",
    ),
    Survivor(
        "11.ee",
        "CRLF sniffed from the first 4 KiB only: a long first line hides it",
        "biopb_kernel_docs/core/store.py",
        'crlf = b"\\r" in data and b"\\r\\n" in data',
        'crlf = b"\\r\\n" in data[:4096]',
        "tests/test_store.py::test_a_crlf_doc_whose_first_line_is_long_keeps_its_line_ends",
    ),
    Survivor(
        "11.ff",
        "a --replace cell stripped of all whitespace, not only newlines: new loses its trailing indent",
        "biopb_kernel_docs/surfaces/magics.py",
        'lines = cell.strip("\\n").split("\\n")',
        'lines = cell.strip().split("\\n")',
        "tests/test_magics.py::test_a_replace_cell_keeps_the_trailing_indentation_of_old_and_new",
    ),
)
