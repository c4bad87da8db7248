// Team labels as the page shows them: counted from 1 in the page's language ("Team 1",
// "1. csapat"), or the name the table gave; and, where the teams are presented (the
// sheet's heading, the buttons that score for a team), with who plays in each ("Team 1:
// Anna & Csaba", "Us: Anna & Csaba"). The API's team keys count from 0; only the
// labels here count from 1.
import { t } from "./i18n.js";

function hasTeams(match) {
  return Boolean(match && Array.isArray(match.teams) && match.teams.length);
}

/** Each team's name, or "Team n" counted from 1; null at a table without teams. */
export function teamNames(match) {
  if (!hasTeams(match)) return null;
  return match.teams.map((team) => team.name || t("team_label", { n: team.team + 1 }));
}

/** Each team's name with its players ("Team 1: Anna & Csaba"); null without teams. */
export function teamsWithPlayers(match) {
  const names = teamNames(match);
  if (!names) return null;
  const players = match.players.map((player) => player.name);
  return match.teams.map((team, index) =>
    t("team_with_players", {
      team: names[index],
      players: team.seats.map((seat) => players[seat] ?? seat).join(t("team_joiner")),
    }),
  );
}

/** The sheet as the page uses it: `columns` say the teams' names (the players' names at
 * a table without teams, as the API gives them), and `teams` the teams with their
 * players (null without teams). */
export function labelled(match, sheet) {
  return { ...sheet, columns: teamNames(match) || sheet.columns, teams: teamsWithPlayers(match) };
}
