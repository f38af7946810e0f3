"""Shell completion (issue 21, item 7): typer's `--show-completion` / `--install-completion`,
and the `_STATICFLOPS_COMPLETE` variable the installed script sets."""

from typer.testing import CliRunner

from staticflops.cli.app import app


def invoke(args, env=None):
    return CliRunner().invoke(app, args, prog_name="staticflops", env=env)


def test_show_completion_prints_the_script_for_the_users_shell(monkeypatch):
    import shellingham

    # typer asks shellingham which shell runs us; under pytest there may be none: say bash
    monkeypatch.setattr(shellingham, "detect_shell", lambda: ("bash", "/bin/bash"))
    result = invoke(["--show-completion"])
    assert result.exit_code == 0, result.output
    assert "complete -o default -F _staticflops_completion staticflops" in result.output
    assert "_STATICFLOPS_COMPLETE=complete_bash" in result.output


def test_the_variable_route_prints_each_shells_script():
    # `eval "$(_STATICFLOPS_COMPLETE=source_bash staticflops)"`, as click documents
    assert "complete -o default -F _staticflops_completion staticflops" in invoke(
        [], env={"_STATICFLOPS_COMPLETE": "source_bash"}).output
    assert "#compdef staticflops" in invoke([], env={"_STATICFLOPS_COMPLETE": "source_zsh"}).output
    assert "complete --command staticflops" in invoke([], env={"_STATICFLOPS_COMPLETE": "source_fish"}).output


def test_the_script_completes_commands_and_options():
    # what the bash function above runs on `staticflops an<TAB>`
    result = invoke([], env={"_STATICFLOPS_COMPLETE": "complete_bash", "COMP_WORDS": "staticflops an", "COMP_CWORD": "1"})
    assert result.exit_code == 0
    assert result.output.split() == ["analyze"]
    options = invoke([], env={"_STATICFLOPS_COMPLETE": "complete_bash",
                              "COMP_WORDS": "staticflops analyze --trai", "COMP_CWORD": "2"})
    assert options.output.split() == ["--training"]


def test_help_lists_the_completion_options():
    output = invoke(["--help"]).output
    assert "--install-completion" in output and "--show-completion" in output
