// The User and Team collections the private-list tests share: a user delegates to its key, a team to its
// members, so a record can be readable through a key, a user or a team.
export const USERS_AND_TEAMS = `
collection User {
  id: string;
  @delegate key: PublicKey;
  constructor (id: string) { this.id = id; this.key = ctx.publicKey; }
}

collection Team {
  id: string;
  @delegate members: User[];
  constructor (id: string, members: User[]) { this.id = id; this.members = members; }
}
`;
