//! The one path every request takes: `Engine::resolve` routes it exactly
//! once into a `Routed` (the answering tool, its path params and the plan
//! that answers), and `Engine::dispatch` answers that against a World, in a
//! fixed sequence of small steps. The server's adapters, the replay check
//! and `environment-check` all go through these two functions, so what the
//! check confirmed is what the server does.

use crate::apply::PatchMeaning;
use crate::generalize::{self, ItemTarget};
use crate::manifest::Tool;
use crate::refusal::Refusal;
use crate::state::{EntityType, ItemPlan, PlanStatus, ViewPlan, WritePlan};
use crate::{answer_headers, apply, render, Answer, Call, Engine, Generator, Params, World};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One request to the environment, from whichever adapter.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// A tool call (MCP `tools/call`): the tool's name and its arguments.
    /// It is answered by that tool or refused; it is never re-routed.
    Tool {
        name: String,
        arguments: Map<String, Value>,
    },
    /// A request at the recorded API's own method, path and query.
    Http(Call),
}

/// What answers a routed request.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan<'e> {
    /// A read: rendered from the World by its view plan, or replayed
    /// (`None`: a read tool without a plan replays its recordings).
    Read(Option<&'e ViewPlan>),
    /// A write applied by its write plan.
    Write(&'e WritePlan),
    /// An item read of a type no tool reads, answered by a family
    /// sibling's item view (see `generalize`).
    SiblingRead(&'e ItemPlan),
    /// An item write of a type no tool writes, answered by a family
    /// sibling's served write plan adapted to the type.
    SiblingWrite(&'e WritePlan),
    /// rea refuses the request (e.g. a write plan that is not served).
    Refused(Refusal),
}

/// A request routed once: the tool that answers, its path params, the plan
/// and the HTTP-shaped call it answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed<'e> {
    pub tool: &'e Tool,
    pub params: Params,
    pub plan: Plan<'e>,
    /// The request's call, borrowed from it when it came as one.
    pub call: Cow<'e, Call>,
    /// The entity type, collection and identity when the path is an item
    /// path of a type (used to answer not-found in the family's shape).
    pub item: Option<ItemTarget<'e>>,
    /// How an update's sent members reach the held value: the plan's own
    /// meaning (stored as sent, what the replay check confirmed) unless the
    /// caller of `Engine::answer_with` names another for the call.
    pub patch: PatchMeaning,
}

impl<'e> Routed<'e> {
    /// A routed request as the server answers it.
    fn served(
        tool: &'e Tool,
        params: Params,
        plan: Plan<'e>,
        call: Cow<'e, Call>,
        item: Option<ItemTarget<'e>>,
    ) -> Routed<'e> {
        Routed {
            tool,
            params,
            plan,
            call,
            item,
            patch: PatchMeaning::StoredAsSent,
        }
    }
}

impl Engine {
    /// Routes a request exactly once. An HTTP request goes to the tool the
    /// router picks (see `route::Router::route`), or to a family sibling
    /// when no tool covers its item line; a tool call is pinned to its tool.
    pub fn resolve<'e>(&'e self, request: &'e Request) -> Result<Routed<'e>, Refusal> {
        match request {
            Request::Tool { name, arguments } => {
                let Some(index) = self.tool_index(name) else {
                    return Err(Refusal::UnknownTool { name: name.clone() });
                };
                let call = self.tool_call(name, &Value::Object(arguments.clone()))?;
                self.pin(index, Cow::Owned(call))
            }
            Request::Http(call) => self.route_line(Cow::Borrowed(call)),
        }
    }

    /// Routes an HTTP-shaped call to the tool the router picks (or a family
    /// sibling when no tool covers its item line).
    fn route_line<'e>(&'e self, call: Cow<'e, Call>) -> Result<Routed<'e>, Refusal> {
        let routed = self.router.route(&call.method, &call.path, |i| {
            self.view_of(&self.manifest.tools[i].name)
                .is_some_and(ViewPlan::renders_from_world)
        });
        let item = generalize::item_target(self, &call.path);
        let own = routed.map(|(i, params)| (&self.manifest.tools[i], params));
        if let Some(target) = &item {
            let covered = own
                .as_ref()
                .is_some_and(|(tool, _)| generalize::covered(self, &call, tool, target.entity));
            if !covered {
                if let Some((plan, tool_name)) = self.sibling_plan(&call.method, target.entity) {
                    if let Some(tool) = self.tool(tool_name) {
                        let mut params = Params::new();
                        params.insert("id".to_string(), target.id.clone());
                        return Ok(Routed::served(tool, params, plan, call, item));
                    }
                }
            }
        }
        let Some((tool, params)) = own else {
            return Err(Refusal::NoMatchingTool {
                method: call.method.clone(),
                line: call.line(),
            });
        };
        Ok(Routed::served(tool, params, self.plan_of(tool), call, item))
    }

    /// Pins a call to one tool: its path params under that tool's template
    /// (refused when the path does not fit it) and that tool's plan.
    fn pin<'e>(&'e self, index: usize, call: Cow<'e, Call>) -> Result<Routed<'e>, Refusal> {
        let tool = &self.manifest.tools[index];
        let Some(params) = self.router.params(index, &call.path) else {
            return Err(Refusal::InvalidArguments {
                tool: tool.name.clone(),
                argument: None,
                message: format!(
                    "{} does not fit the template {}",
                    call.path, tool.path_template
                ),
            });
        };
        let item = generalize::item_target(self, &call.path);
        Ok(Routed::served(tool, params, self.plan_of(tool), call, item))
    }

    /// Pins a call to a tool for the replay check: like a tool call, but a
    /// write tool's plan applies whatever its status (the check is what
    /// decides the status).
    pub fn resolve_for_check(&self, tool: &str, call: Call) -> Option<Routed<'_>> {
        let mut routed = self.pin(self.tool_index(tool)?, Cow::Owned(call)).ok()?;
        if let Some(plan) = self.write_of(tool) {
            routed.plan = Plan::Write(plan);
        }
        Some(routed)
    }

    /// The plan that answers a tool's requests.
    fn plan_of<'e>(&'e self, tool: &'e Tool) -> Plan<'e> {
        if let Some(plan) = self.write_of(&tool.name) {
            if plan.status != PlanStatus::Served {
                return Plan::Refused(Refusal::NotServed {
                    tool: tool.name.clone(),
                    method: tool.method.clone(),
                    template: tool.path_template.clone(),
                    reason: plan
                        .reason
                        .map_or_else(|| "unserved".to_string(), |r| r.to_string()),
                });
            }
            return Plan::Write(plan);
        }
        match self.view_of(&tool.name) {
            Some(view) => Plan::Read(Some(view)),
            None if is_read_method(&tool.method) => Plan::Read(None),
            None => Plan::Refused(Refusal::NotServed {
                tool: tool.name.clone(),
                method: tool.method.clone(),
                template: tool.path_template.clone(),
                reason: "no-state-target".to_string(),
            }),
        }
    }

    /// The sibling plan (and its tool's name) that answers `method` on an
    /// item of `t`, if any.
    fn sibling_plan(&self, method: &str, t: &EntityType) -> Option<(Plan<'_>, &str)> {
        if method.eq_ignore_ascii_case("GET") {
            generalize::sibling_view(self, t).map(|p| (Plan::SiblingRead(p), p.tool.as_str()))
        } else {
            generalize::sibling_write(self, t, method)
                .map(|w| (Plan::SiblingWrite(w), w.tool.as_str()))
        }
    }

    /// Answers a routed request against `world`, in order:
    /// 1. the plan answers (a refusal, a read rendered or replayed, a write
    ///    applied, a sibling's plan);
    /// 2. a not-found rea made up itself takes the family's recorded shape;
    /// 3. the headers are made to describe the answer (`answer_headers`).
    ///
    /// The World changes only when the answer says `applied: Yes`.
    pub fn dispatch(
        &self,
        world: &mut World,
        routed: Routed<'_>,
        gen: &mut dyn Generator,
    ) -> Answer {
        let answer = self.answer_plan(world, &routed, gen);
        let answer = generalize::not_found_in_family(self, &routed, answer);
        answer_headers::describe(self, &routed.call, answer)
    }

    /// Step 1 of `dispatch`: the plan's own answer.
    fn answer_plan(
        &self,
        world: &mut World,
        routed: &Routed<'_>,
        gen: &mut dyn Generator,
    ) -> Answer {
        let Routed {
            tool,
            params,
            call,
            item,
            ..
        } = routed;
        match &routed.plan {
            Plan::Refused(refusal) => refusal.answer(),
            Plan::Write(plan) => {
                apply::apply_write_with(self, plan, world, call, params, gen, routed.patch)
            }
            Plan::Read(_) => render::read(self, world, tool, params, call),
            Plan::SiblingRead(plan) => match item {
                Some(target) => generalize::sibling_read(self, world, plan, target),
                None => render::read(self, world, tool, params, call),
            },
            Plan::SiblingWrite(plan) => match item {
                Some(target) => {
                    generalize::sibling_write_answer(self, world, routed, plan, target, gen)
                }
                None => apply::apply_write_with(self, plan, world, call, params, gen, routed.patch),
            },
        }
    }

    /// Resolves and dispatches one HTTP-shaped call (what the HTTP adapter
    /// does): refusals answer as rea's own errors.
    pub fn call(&self, world: &mut World, call: &Call, gen: &mut dyn Generator) -> Answer {
        self.answer(world, &Request::Http(call.clone()), gen)
    }

    /// Resolves and dispatches one request, each write plan meaning what
    /// the replay check confirmed.
    pub fn answer(&self, world: &mut World, request: &Request, gen: &mut dyn Generator) -> Answer {
        self.answer_with(world, request, gen, &|_| PatchMeaning::StoredAsSent)
    }

    /// `answer`, with an update's sent members reaching the held value as
    /// `patch` says for the routed call (the app model's inferred write
    /// semantics, where its own evidence confirmed them: docs/serving.md,
    /// "One meaning per write plan").
    pub fn answer_with(
        &self,
        world: &mut World,
        request: &Request,
        gen: &mut dyn Generator,
        patch: &dyn Fn(&Call) -> PatchMeaning,
    ) -> Answer {
        match self.resolve(request) {
            Ok(mut routed) => {
                routed.patch = patch(&routed.call);
                self.dispatch(world, routed, gen)
            }
            Err(refusal) => refusal.answer(),
        }
    }
}

/// GET, HEAD and OPTIONS read.
pub fn is_read_method(method: &str) -> bool {
    ["GET", "HEAD", "OPTIONS"]
        .iter()
        .any(|m| method.eq_ignore_ascii_case(m))
}
