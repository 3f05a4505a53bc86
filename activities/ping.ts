import { Context } from '@temporalio/activity';

export interface PingActivities {
  ping(message: string): Promise<string>;
}

export const pingActivities: PingActivities = {
  async ping(message) {
    return `pong: ${message} (activity attempt ${Context.current().info.attempt})`;
  },
};
