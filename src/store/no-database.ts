/**
 * What opening a store says when it was told not to create a database (`create: false`) and finds
 * none there: no SQLite file, or a file or PostgreSQL schema without circulation's tables. The
 * command line opens so everywhere but `serve`, `migrate` and `seed`, where a mistyped
 * DATABASE_URL would otherwise make, and work on, an empty database.
 */
export class NoDatabase extends Error {
  constructor() {
    super('there is no circulation database there');
    this.name = 'NoDatabase';
  }
}
