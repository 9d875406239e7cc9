// A World for the generic world bridge's own tests: world-local (the file
// URL in options.localModule) with two habits of other Worlds that a
// bridge must survive. It writes a line to process.stdout when it is made
// (world-postgres's queue worker writes its warnings there), and
// events.create refuses a wait's resumeAt or a retry's retryAfter that is
// not a Date (world-postgres calls Date methods on them), as the World's
// types allow it to.
export async function createWorld(options) {
  const { localModule, ...rest } = options;
  const { createWorld: createLocal } = await import(localModule);
  const world = createLocal(rest);
  process.stdout.write("[strict world] made, logging to stdout\n");
  const create = world.events.create.bind(world.events);
  world.events.create = (runId, event, params) => {
    for (const key of ["resumeAt", "retryAfter"]) {
      const v = event?.eventData?.[key];
      if (v !== undefined && !(v instanceof Date)) {
        throw new TypeError(`eventData.${key} is a ${typeof v}, not a Date`);
      }
    }
    return create(runId, event, params);
  };
  return world;
}
